/* Preloaded into the GUI runs of the sanitizer job only (.ci/sanitize): dlclose does nothing, so
 * the libraries GLFW opens at run time (libGL / GLX and Mesa's driver) stay mapped until the
 * process ends. When they are unloaded, LeakSanitizer no longer sees their static data, and
 * everything it pointed to (Mesa's option strings, its screen records) is reported as a leak of
 * "<unknown module>", which no suppression can name. Kept loaded, those allocations are
 * reachable and a real leak of adilab's own is still reported. */
int dlclose(void *handle) {
    (void)handle;
    return 0;
}
