/* Aligned allocations, all live together then freed. Expected in
 * [50000, 54000): 5 alloc with alignments 64,128,256,4096,4096 (in order),
 * 5 free, peak 50001+50048+50002+50003+53248 = 253302 (pvalloc rounds
 * 50004 up to 13 pages of 4096). */
#include <malloc.h>
#include <stdlib.h>
int main(void) {
    void *p[5];
    if (posix_memalign(&p[0], 64, 50001) != 0)
        return 1;
    p[1] = aligned_alloc(128, 50048);
    p[2] = memalign(256, 50002);
    p[3] = valloc(50003);
    p[4] = pvalloc(50004);
    for (int i = 0; i < 5; i++)
        free(p[i]);
    return 0;
}
