// The browser's platform: emscripten's built-in GLFW on the page's canvas,
// WebGL2, and Dear ImGui's GLFW + OpenGL3 backends (built from Dear ImGui's
// sources by web/CMakeLists.txt). The browser presents each frame when the
// main loop's callback returns; keys come as GLFW callbacks between frames.
#include <GLES3/gl3.h>
#include <GLFW/glfw3.h>
#include <emscripten/html5.h>
#include <imgui.h>

#include <stdexcept>
#include <vector>

#include "imgui_impl_glfw.h"
#include "imgui_impl_opengl3.h"
#include "viewer/app/app.h"
#include "viewer/platform/platform.h"

namespace warplab::viewer {

struct Window {
    GLFWwindow* window = nullptr;
    std::vector<Key> keys;  // pressed since the last poll_events
};

namespace {

bool key_of(int glfw_key, Key& key)
{
    switch (glfw_key) {
    case GLFW_KEY_LEFT: key = Key::Left; return true;
    case GLFW_KEY_RIGHT: key = Key::Right; return true;
    case GLFW_KEY_UP: key = Key::Up; return true;
    case GLFW_KEY_DOWN: key = Key::Down; return true;
    case GLFW_KEY_SPACE: key = Key::Space; return true;
    case GLFW_KEY_F: key = Key::F; return true;
    case GLFW_KEY_W: key = Key::W; return true;
    case GLFW_KEY_C: key = Key::C; return true;
    case GLFW_KEY_D: key = Key::D; return true;
    case GLFW_KEY_V: key = Key::V; return true;
    case GLFW_KEY_ESCAPE: key = Key::Escape; return true;
    case GLFW_KEY_PAGE_UP: key = Key::PageUp; return true;
    case GLFW_KEY_PAGE_DOWN: key = Key::PageDown; return true;
    case GLFW_KEY_R: key = Key::R; return true;
    case GLFW_KEY_B: key = Key::B; return true;
    case GLFW_KEY_PERIOD: key = Key::Period; return true;
    default: return false;
    }
}

// Installed before ImGui's backend, which calls it after its own.
void on_glfw_key(GLFWwindow* glfw_window, int glfw_key, int, int action, int)
{
    auto* window = static_cast<Window*>(glfwGetWindowUserPointer(glfw_window));
    const bool repeatable = glfw_key != GLFW_KEY_SPACE && glfw_key != GLFW_KEY_F;
    Key key;
    if ((action == GLFW_PRESS || (action == GLFW_REPEAT && repeatable)) && key_of(glfw_key, key)) window->keys.push_back(key);
}

// The canvas follows its place on the page (CSS pixels): the page lays it out, GLFW sizes it.
void follow_page_size(GLFWwindow* window)
{
    double css_width = 0, css_height = 0;
    emscripten_get_element_css_size("#canvas", &css_width, &css_height);
    int width = 0, height = 0;
    glfwGetWindowSize(window, &width, &height);
    if (int(css_width) > 0 && int(css_height) > 0 && (int(css_width) != width || int(css_height) != height))
        glfwSetWindowSize(window, int(css_width), int(css_height));
}

}  // namespace

bool no_display() { return false; }

Platform::Platform(const PlatformOptions& options, App& app) : window_(std::make_unique<Window>()), headless_(options.headless)
{
    if (!glfwInit()) throw std::runtime_error("cannot start emscripten's GLFW");
    glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
    window_->window = glfwCreateWindow(options.width, options.height, "warplab viewer", nullptr, nullptr);
    if (!window_->window) throw std::runtime_error("cannot create a WebGL2 context on the page's canvas (WebGL2 is off or missing)");
    glfwMakeContextCurrent(window_->window);
    glfwSetWindowUserPointer(window_->window, window_.get());
    glfwSetKeyCallback(window_->window, on_glfw_key);

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;  // the layout is fixed; nothing to remember
    app.fonts = load_fonts();
    if (!ImGui_ImplGlfw_InitForOpenGL(window_->window, true) || !ImGui_ImplOpenGL3_Init("#version 300 es"))
        throw std::runtime_error("cannot start Dear ImGui's GLFW and OpenGL3 backends");
}

Platform::~Platform()
{
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(window_->window);
    glfwTerminate();
}

void Platform::poll_events(App& app)
{
    follow_page_size(window_->window);
    glfwPollEvents();
    if (!ImGui::GetIO().WantTextInput)
        for (Key key : window_->keys) on_key(app, key);
    window_->keys.clear();
}

WindowSize window_size(const Window& window)
{
    WindowSize size;
    glfwGetWindowSize(window.window, &size.width, &size.height);
    return size;
}

// The browser allows full screen only from a key or click: the request waits for the next one.
void set_fullscreen(Window&, bool fullscreen)
{
    if (fullscreen)
        emscripten_request_fullscreen("#canvas", true);
    else
        emscripten_exit_fullscreen();
}

void new_backend_frame(Window&)
{
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
}

void drop_fonts_texture(Window&) { ImGui_ImplOpenGL3_DestroyFontsTexture(); }

void Platform::rasterize()
{
    int w = 0, h = 0;
    glfwGetFramebufferSize(window_->window, &w, &h);
    glViewport(0, 0, w, h);
    glClearColor(1, 1, 1, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

// WebGL's rows run bottom-up; the image's top-down.
Image Platform::read_pixels() const
{
    Image img;
    glfwGetFramebufferSize(window_->window, &img.width, &img.height);
    const std::size_t row = std::size_t(img.width) * 4;
    std::vector<std::uint8_t> flipped(row * img.height);
    glReadPixels(0, 0, img.width, img.height, GL_RGBA, GL_UNSIGNED_BYTE, flipped.data());
    img.rgba.resize(flipped.size());
    for (int y = 0; y < img.height; ++y)
        std::copy_n(flipped.data() + row * (img.height - 1 - y), row, img.rgba.data() + row * y);
    return img;
}

void Platform::present() {}  // the browser shows the canvas when the frame's callback returns

std::string Platform::renderer_name() const
{
    const auto* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    return std::string("emscripten GLFW, WebGL2 (") + (renderer ? renderer : "?") + ")";
}

}  // namespace warplab::viewer
