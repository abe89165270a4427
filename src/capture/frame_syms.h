/* The present functions the capture library can interpose to mark frames
 * without annotation (capture --frames, src/capture/frames.c;
 * docs/CAPTURE.md "Frames without annotation"). Shared with the command
 * line, which checks the names given to --frames against it.
 *
 * X(NAME, ARGS): the function's name and how many arguments it takes. Every
 * one of them takes only integer or pointer arguments and returns void, an
 * integer or a pointer: the wrapper forwards ARGS machine words unchanged and
 * hands back the machine word the function returned (what the C calling
 * conventions of x86-64 and AArch64 make of such signatures). A function
 * outside this list cannot be wrapped: an LD_PRELOAD library interposes only
 * the names it defines when it is built, and forwarding a signature it does
 * not know (floating-point or struct arguments) is not safe. */
#ifndef HR_CAPTURE_FRAME_SYMS_H
#define HR_CAPTURE_FRAME_SYMS_H

#define HR_FRAME_SYMS(X)                                                                    \
    X(glXSwapBuffers, 2)              /* void (Display *, GLXDrawable) */                     \
    X(eglSwapBuffers, 2)              /* EGLBoolean (EGLDisplay, EGLSurface) */               \
    X(eglSwapBuffersWithDamageKHR, 4) /* EGLBoolean (dpy, surface, EGLint *rects, n) */       \
    X(eglSwapBuffersWithDamageEXT, 4) /* the same */                                          \
    X(SDL_GL_SwapWindow, 1)           /* SDL2: void (SDL_Window *); SDL3: bool */             \
    X(SDL_RenderPresent, 1)           /* SDL2: void (SDL_Renderer *); SDL3: bool */           \
    X(SDL_UpdateWindowSurface, 1)     /* int (SDL_Window *) */                                \
    X(SDL_GL_SwapBuffers, 0)          /* SDL 1.2: void (void) */                              \
    X(SDL_Flip, 1)                    /* SDL 1.2: int (SDL_Surface *) */                      \
    X(glfwSwapBuffers, 1)             /* void (GLFWwindow *) */                               \
    X(glutSwapBuffers, 0)             /* void (void) */                                       \
    X(al_flip_display, 0)             /* Allegro 5: void (void) */                            \
    X(vkQueuePresentKHR, 2)           /* VkResult (VkQueue, const VkPresentInfoKHR *) */

#endif
