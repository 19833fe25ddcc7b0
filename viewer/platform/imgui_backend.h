// Dear ImGui's SDL2 + SDL_Renderer backends under the names this distribution
// ships (viewer/CMakeLists.txt finds them and defines the macros):
//   1.86 (Debian 12):  imgui_impl_sdl.h,  ImGui_ImplSDL2_*,  imgui_impl_sdlrenderer.h,  ImGui_ImplSDLRenderer_*
//   1.89 and later:    imgui_impl_sdl2.h, ImGui_ImplSDL2_*,  imgui_impl_sdlrenderer2.h, ImGui_ImplSDLRenderer2_*
// Later versions also take the renderer in InitForSDLRenderer and in
// RenderDrawData; CMake reads the installed headers to see which.
#pragma once
#include <SDL.h>
#include <imgui.h>

#if defined(WARPLAB_IMGUI_IMPL_SDL2_HEADER)
#include "imgui_impl_sdl2.h"
#else
#include "imgui_impl_sdl.h"
#endif

#if defined(WARPLAB_IMGUI_SDLRENDERER2)
#include "imgui_impl_sdlrenderer2.h"
#define WARPLAB_SDLRENDERER(fn) ImGui_ImplSDLRenderer2_##fn
#else
#include "imgui_impl_sdlrenderer.h"
#define WARPLAB_SDLRENDERER(fn) ImGui_ImplSDLRenderer_##fn
#endif

namespace warplab::viewer::backend {

inline bool init(SDL_Window* window, SDL_Renderer* renderer)
{
#if defined(WARPLAB_IMGUI_INIT_TAKES_RENDERER)
    if (!ImGui_ImplSDL2_InitForSDLRenderer(window, renderer)) return false;
#else
    if (!ImGui_ImplSDL2_InitForSDLRenderer(window)) return false;
#endif
    return WARPLAB_SDLRENDERER(Init)(renderer);
}

inline void new_frame()
{
    WARPLAB_SDLRENDERER(NewFrame)();
    ImGui_ImplSDL2_NewFrame();
}

inline void render(SDL_Renderer* renderer)
{
#if defined(WARPLAB_IMGUI_DRAW_TAKES_RENDERER)
    WARPLAB_SDLRENDERER(RenderDrawData)(ImGui::GetDrawData(), renderer);
#else
    (void)renderer;
    WARPLAB_SDLRENDERER(RenderDrawData)(ImGui::GetDrawData());
#endif
}

inline bool process_event(const SDL_Event& event) { return ImGui_ImplSDL2_ProcessEvent(&event); }

// The next new_frame() uploads the font atlas again (after it was rebuilt).
inline void drop_fonts_texture() { WARPLAB_SDLRENDERER(DestroyFontsTexture)(); }

inline void shutdown()
{
    WARPLAB_SDLRENDERER(Shutdown)();
    ImGui_ImplSDL2_Shutdown();
}

}  // namespace warplab::viewer::backend
