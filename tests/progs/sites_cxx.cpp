// A C++ level loader for tests/cli/test_sites_cxx.sh: its blocks are made
// through operator new and std::vector's growth, so that `heapreplay sites`
// must demangle the names and pass over the C++ wrappers to name the code
// that asked: Level::load (each tile and the vector of tiles) and
// Level::scratch (a temporary string freed at once). Built -O0 -g by the
// test; each site's line is marked SITE:.
#include <string>
#include <vector>

struct Tile {
    int id;
    char pixels[40];
};

class Level {
  public:
    __attribute__((noinline)) void load(int n) {
        for (int i = 0; i < n; i++) {
            Tile *t = new Tile{i, {0}}; // SITE:load
            tiles.push_back(t);         // SITE:grow
        }
    }
    __attribute__((noinline)) size_t scratch(int i) {
        std::string s(100 + i, 'x'); // SITE:scratch
        return s.size();
    }
    ~Level() {
        for (Tile *t : tiles)
            delete t;
    }
    std::vector<Tile *> tiles;
};

int main() {
    Level *l = new Level;
    l->load(200);
    size_t n = 0;
    for (int i = 0; i < 50; i++)
        n += l->scratch(i);
    delete l;
    return n == 0;
}
