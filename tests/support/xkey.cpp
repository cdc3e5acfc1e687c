// adilab_test_xkey: real X11 input for the GUI tests under Xvfb. Waits for the top-level window
// named NAME, then plays a script of key presses (XSendEvent KeyPress, held `hold` ms, then
// KeyRelease: ImGui 1.86 only sees a key that stays down across a frame) and finally asks the
// window to close the way a window manager does (WM_DELETE_WINDOW).
//
//   adilab_test_xkey [--after FILE] NAME KEY@DELAY_MS ... [close@DELAY_MS]
//
// --after FILE: start only once FILE exists (e.g. the GUI's --first-screenshot, written after
// its first frame, when shader compiles are done and frames come at their normal rate).
// KEY is an X keysym name (space, s, h, F12). Exit codes: 0 done, 1 no display or no window
// within 30 s, 2 bad arguments. Needs only libX11 (no XTest, no xdotool).
#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace {

// Windows come and go while the tree is walked (a BadWindow from a window destroyed between
// XQueryTree and XFetchName); Xlib's default handler would exit the program on it.
int ignore_x_errors(Display*, XErrorEvent*) { return 0; }

void sleep_ms(long ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

Window find_window(Display* display, Window root, const char* name) {
    Window parent_return, root_return;
    Window* children = nullptr;
    unsigned count = 0;
    if (!XQueryTree(display, root, &root_return, &parent_return, &children, &count)) return 0;
    Window found = 0;
    for (unsigned i = 0; i < count && found == 0; ++i) {
        char* title = nullptr;
        if (XFetchName(display, children[i], &title) && title != nullptr) {
            if (std::strcmp(title, name) == 0) found = children[i];
            XFree(title);
        }
        if (found == 0) found = find_window(display, children[i], name);
    }
    if (children != nullptr) XFree(children);
    return found;
}

void send_key(Display* display, Window window, KeyCode code, bool press, Time time) {
    XKeyEvent e{};
    e.type = press ? KeyPress : KeyRelease;
    e.display = display;
    e.window = window;
    e.root = DefaultRootWindow(display);
    e.subwindow = None;
    e.time = time;
    e.same_screen = True;
    e.keycode = code;
    XSendEvent(display, window, True, press ? KeyPressMask : KeyReleaseMask,
               reinterpret_cast<XEvent*>(&e));
    XFlush(display);
}

}  // namespace

int main(int argc, char** argv) {
    const char* after = nullptr;
    if (argc >= 3 && std::strcmp(argv[1], "--after") == 0) {
        after = argv[2];
        argv += 2;
        argc -= 2;
    }
    if (argc < 3) {
        std::fprintf(stderr,
                     "usage: adilab_test_xkey [--after FILE] NAME KEY@DELAY_MS ... [close@DELAY_MS]\n");
        return 2;
    }
    Display* display = XOpenDisplay(nullptr);
    if (display == nullptr) {
        std::fprintf(stderr, "adilab_test_xkey: cannot open the display\n");
        return 1;
    }
    XSetErrorHandler(ignore_x_errors);
    for (int tries = 0; after != nullptr && tries < 600; ++tries) {
        if (std::FILE* f = std::fopen(after, "rb")) {
            std::fclose(f);
            after = nullptr;
        } else {
            sleep_ms(100);
        }
    }
    if (after != nullptr) {
        std::fprintf(stderr, "adilab_test_xkey: '%s' did not appear within 60 s\n", after);
        return 1;
    }
    // The window is looked for only after FILE exists: GLFW makes (and, when the context it
    // asks for cannot be had, destroys) a window of the same name for each GL version it tries,
    // and events sent to such a short-lived window are lost.
    Window window = 0;
    for (int tries = 0; tries < 300 && window == 0; ++tries) {
        window = find_window(display, DefaultRootWindow(display), argv[1]);
        if (window == 0) sleep_ms(100);
    }
    if (window == 0) {
        std::fprintf(stderr, "adilab_test_xkey: no window named '%s' within 30 s\n", argv[1]);
        return 1;
    }
    Time time = 1000;
    for (int i = 2; i < argc; ++i) {
        const std::string item = argv[i];
        const auto at = item.find('@');
        if (at == std::string::npos) return 2;
        const std::string key = item.substr(0, at);
        sleep_ms(std::atol(item.c_str() + at + 1));
        if (key == "close") {
            XEvent e{};
            e.xclient.type = ClientMessage;
            e.xclient.window = window;
            e.xclient.message_type = XInternAtom(display, "WM_PROTOCOLS", False);
            e.xclient.format = 32;
            e.xclient.data.l[0] = static_cast<long>(XInternAtom(display, "WM_DELETE_WINDOW", False));
            e.xclient.data.l[1] = CurrentTime;
            XSendEvent(display, window, False, NoEventMask, &e);
            XFlush(display);
            continue;
        }
        const KeySym sym = XStringToKeysym(key.c_str());
        const KeyCode code = sym == NoSymbol ? 0 : XKeysymToKeycode(display, sym);
        if (code == 0) {
            std::fprintf(stderr, "adilab_test_xkey: unknown key '%s'\n", key.c_str());
            return 2;
        }
        send_key(display, window, code, true, time += 100);
        // Held over several frames, and shorter than ImGui's key-repeat delay (0.275 s).
        sleep_ms(150);
        send_key(display, window, code, false, time += 100);
    }
    XCloseDisplay(display);
    return 0;
}
