// adilab_test_xkey: real X11 input for the GUI tests under Xvfb. Waits for the top-level window
// named NAME, then plays a script of key presses (XSendEvent KeyPress, held, then KeyRelease),
// clicks and typing, and finally asks the window to close the way a window manager does
// (WM_DELETE_WINDOW).
//
//   adilab_test_xkey [--after FILE] NAME KEY@DELAY_MS ... [close@DELAY_MS]
//
// Items, each after DELAY_MS: KEY (held 150 ms), KEY/HOLD (held HOLD ms: quick taps),
// type:TEXT (each character tapped, letters, digits, '.', '-'), click:X,Y and ctrlclick:X,Y (the
// pointer moved to window pixel X,Y, then a left click, with Ctrl held for ctrlclick), move:X,Y
// (the pointer moved there, no button), ctrldrag:X0,Y0:X1,Y1 (Ctrl held, the left button pressed
// at X0,Y0, the pointer moved to X1,Y1 in 20 steps over a second, released), ctrl+KEY (KEY
// pressed with Ctrl held), close.
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
int ignore_x_errors(Display*, XErrorEvent*) {
    return 0;
}

void sleep_ms(long ms) {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

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

void send_key(Display* display, Window window, KeyCode code, bool press, Time time,
              unsigned state = 0) {
    XKeyEvent e{};
    e.state = state;  // the modifiers held, which GLFW reads as the event's mods
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

void send_button(Display* display, Window window, int x, int y, bool press, unsigned state,
                 Time time) {
    XButtonEvent e{};
    e.type = press ? ButtonPress : ButtonRelease;
    e.display = display;
    e.window = window;
    e.root = DefaultRootWindow(display);
    e.time = time;
    e.x = x;
    e.y = y;
    e.state = state;
    e.button = Button1;
    e.same_screen = True;
    XSendEvent(display, window, True, press ? ButtonPressMask : ButtonReleaseMask,
               reinterpret_cast<XEvent*>(&e));
    XFlush(display);
}

KeyCode code_of(Display* display, const std::string& name) {
    const KeySym sym = XStringToKeysym(name.c_str());
    return sym == NoSymbol ? 0 : XKeysymToKeycode(display, sym);
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
        std::fprintf(
            stderr,
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
        std::string key = item.substr(0, at);
        sleep_ms(std::atol(item.c_str() + at + 1));
        if (key.starts_with("click:") || key.starts_with("ctrlclick:")) {
            // GLFW reads the pointer from the server (XQueryPointer) and ImGui only follows it
            // while the window has the input focus: both set for real, then the button events.
            const bool ctrl = key.starts_with("ctrl");
            int x = 0, y = 0;
            if (std::sscanf(key.c_str() + key.find(':') + 1, "%d,%d", &x, &y) != 2) return 2;
            XSetInputFocus(display, window, RevertToParent, CurrentTime);
            XWarpPointer(display, None, window, 0, 0, 0, 0, x, y);
            XFlush(display);
            sleep_ms(300);  // a frame or two sees the pointer there first
            const KeyCode control = code_of(display, "Control_L");
            if (ctrl) send_key(display, window, control, true, time += 10);
            if (ctrl) sleep_ms(200);
            send_button(display, window, x, y, true, ctrl ? ControlMask : 0, time += 10);
            sleep_ms(150);
            send_button(display, window, x, y, false, ctrl ? ControlMask : 0, time += 10);
            if (ctrl) sleep_ms(150);
            if (ctrl) send_key(display, window, control, false, time += 10);
            continue;
        }
        if (key.starts_with("move:")) {
            int x = 0, y = 0;
            if (std::sscanf(key.c_str() + 5, "%d,%d", &x, &y) != 2) return 2;
            XSetInputFocus(display, window, RevertToParent, CurrentTime);
            XWarpPointer(display, None, window, 0, 0, 0, 0, x, y);
            XFlush(display);
            continue;
        }
        if (key.starts_with("ctrldrag:")) {
            int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
            if (std::sscanf(key.c_str() + 9, "%d,%d:%d,%d", &x0, &y0, &x1, &y1) != 4) return 2;
            XSetInputFocus(display, window, RevertToParent, CurrentTime);
            XWarpPointer(display, None, window, 0, 0, 0, 0, x0, y0);
            XFlush(display);
            sleep_ms(300);
            const KeyCode control = code_of(display, "Control_L");
            send_key(display, window, control, true, time += 10);
            sleep_ms(200);
            send_button(display, window, x0, y0, true, ControlMask, time += 10);
            // Steps a frame or more apart, so that the GUI sees the button held while it moves.
            for (int k = 1; k <= 20; ++k) {
                sleep_ms(50);
                XWarpPointer(display, None, window, 0, 0, 0, 0, x0 + (x1 - x0) * k / 20,
                             y0 + (y1 - y0) * k / 20);
                XFlush(display);
            }
            sleep_ms(300);
            send_button(display, window, x1, y1, false, ControlMask, time += 10);
            sleep_ms(150);
            send_key(display, window, control, false, time += 10);
            continue;
        }
        if (key.starts_with("ctrl+")) {
            const KeyCode code = code_of(display, key.substr(5));
            const KeyCode control = code_of(display, "Control_L");
            if (code == 0) return 2;
            send_key(display, window, control, true, time += 10);
            sleep_ms(150);
            send_key(display, window, code, true, time += 10, ControlMask);
            sleep_ms(150);
            send_key(display, window, code, false, time += 10, ControlMask);
            sleep_ms(150);
            send_key(display, window, control, false, time += 10, ControlMask);
            continue;
        }
        if (key.starts_with("type:")) {
            for (char c : key.substr(5)) {
                const std::string name = c == '.'   ? "period"
                                         : c == '-' ? "minus"
                                                    : std::string(1, c);
                const KeyCode code = code_of(display, name);
                if (code == 0) return 2;
                send_key(display, window, code, true, time += 10);
                sleep_ms(60);
                send_key(display, window, code, false, time += 10);
                sleep_ms(60);
            }
            continue;
        }
        long hold = 150;  // held over several frames, shorter than ImGui's key repeat (0.275 s)
        if (const auto slash = key.find('/'); slash != std::string::npos) {
            hold = std::atol(key.c_str() + slash + 1);
            key = key.substr(0, slash);
        }
        if (key == "close") {
            XEvent e{};
            e.xclient.type = ClientMessage;
            e.xclient.window = window;
            e.xclient.message_type = XInternAtom(display, "WM_PROTOCOLS", False);
            e.xclient.format = 32;
            e.xclient.data.l[0] =
                static_cast<long>(XInternAtom(display, "WM_DELETE_WINDOW", False));
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
        sleep_ms(hold);
        send_key(display, window, code, false, time += 100);
    }
    XCloseDisplay(display);
    return 0;
}
