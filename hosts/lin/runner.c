/*
 * runner.c: desk-lin, the headless host of the firmware built for the Moddable
 * SDK's own desktop runtime (mcconfig -p lin: build/lin/<type>/.../mc.so).
 *
 *   desk-lin <mc.so> [--dir DIR]
 *
 * DIR is the device folder: the runner works there, so the SDK's lin
 * Preference (modpreferences.json: NVS) and nvs-keep.json land in it. Without
 * --dir it is device/ beside this program (build/lin/device), made when
 * missing: never the folder it was started from (a checkout's root).
 *
 * mc.so holds the SDK's XS, its lin platform (glib's main loop, sockets,
 * timers, files), the SDK modules the manifest links and the preloaded
 * firmware, exactly as mcconfig and xsl made them. The SDK's own host for it
 * is mcsim, a GTK window (modules/piu/PC/Screen/lin/piuScreen.c); this is the
 * same launch without the window, so the firmware runs where there is no
 * display and no GTK: it sets up the screen record the way piuScreen.c does,
 * calls the library's fxScreenLaunch (build/simulators/modules/screen.c, which
 * runs the setup modules and then main) and runs glib's main loop.
 *
 * The serial console: a pseudo-terminal whose path goes to the firmware in
 * DESK_CONSOLE (the lin HAL opens it with the SDK's embedded:io/serial);
 * this process relays its stdin to the terminal and the terminal to its
 * stdout. Everything the firmware prints itself (trace, XS's reports) goes
 * to stderr, so stdout carries the console alone.
 *
 * Exit status: the firmware's own (lin HAL: 64 reboot, 65 deep sleep), 70
 * when XS aborts (an uncaught exception, a stack or key overflow), 74 when
 * the library cannot be loaded.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib-unix.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "screen.h"

#define SCREEN_WIDTH 480
#define SCREEN_HEIGHT 480

static int gConsoleOut = -1;
static int gTerminal = -1;
static guint gIdleSource = 0;

/* XS's exit statuses (xs/includes/xsffi.h) */
static const char* abortReason(int status)
{
	switch (status) {
	case 0: return "debugger";
	case 1: return "not enough memory";
	case 2: return "stack overflow";
	case 3: return "fatal";
	case 4: return "dead strip";
	case 5: return "unhandled exception";
	case 6: return "not enough keys";
	case 7: return "too much computation";
	case 8: return "unhandled rejection";
	case 9: return "native stack overflow";
	default: return "unknown";
	}
}

static void onAbort(txScreen* screen, int status)
{
	(void)screen;
	fprintf(stderr, "desk-lin: XS abort: %s (%d)\n", abortReason(status), status);
	fflush(stderr);
	_exit(70);
}

static void onQuiet(txScreen* screen)
{
	(void)screen;
}

static void onPost(txScreen* screen, char* message, int size)
{
	(void)screen;
	(void)message;
	(void)size;
}

static gboolean onIdle(gpointer data)
{
	txScreen* screen = data;
	if (screen->idle)
		(*screen->idle)(screen);
	return G_SOURCE_CONTINUE;
}

static void onStart(txScreen* screen, double interval)
{
	if (gIdleSource)
		g_source_remove(gIdleSource);
	gIdleSource = g_timeout_add(interval > 1 ? (guint)interval : 1, onIdle, screen);
}

static void onStop(txScreen* screen)
{
	(void)screen;
	if (gIdleSource)
		g_source_remove(gIdleSource);
	gIdleSource = 0;
}

static void writeAll(int fd, const char* data, ssize_t length)
{
	while (length > 0) {
		ssize_t count = write(fd, data, (size_t)length);
		if (count < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				g_usleep(1000);
				continue;
			}
			return;
		}
		data += count;
		length -= count;
	}
}

/* what the firmware writes to the terminal: to stdout */
static gboolean onTerminal(gint fd, GIOCondition condition, gpointer data)
{
	char buffer[4096];
	(void)data;
	if (condition & G_IO_IN) {
		ssize_t count = read(fd, buffer, sizeof(buffer));
		if (count > 0)
			writeAll(gConsoleOut, buffer, count);
	}
	/* G_IO_HUP: the firmware has not opened the terminal yet, or closed it: wait */
	if ((condition & G_IO_HUP) && !(condition & G_IO_IN))
		g_usleep(20000);
	return G_SOURCE_CONTINUE;
}

/* stdin: to the terminal, as a person typing into the device's console would */
static gboolean onStdin(gint fd, GIOCondition condition, gpointer data)
{
	char buffer[4096];
	(void)data;
	(void)condition;
	ssize_t count = read(fd, buffer, sizeof(buffer));
	if (count <= 0)
		return G_SOURCE_REMOVE;
	writeAll(gTerminal, buffer, count);
	return G_SOURCE_CONTINUE;
}

static int openTerminal(void)
{
	int master, slave;
	struct termios tio;
	if (openpty(&master, &slave, NULL, NULL, NULL) < 0)
		return -1;
	if (tcgetattr(slave, &tio) == 0) {
		cfmakeraw(&tio);
		tcsetattr(slave, TCSANOW, &tio);
	}
	setenv("DESK_CONSOLE", ptsname(master), 1);
	/* kept open, so the master does not hang up before the firmware opens the terminal */
	fcntl(slave, F_SETFD, FD_CLOEXEC);
	fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
	return master;
}

int main(int argc, char* argv[])
{
	const char* library = NULL;
	const char* dir = NULL;
	void* handle;
	txScreenLaunchProc launch;
	txScreen* screen;
	size_t size;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--dir") && (i + 1 < argc))
			dir = argv[++i];
		else if (!library)
			library = argv[i];
		else {
			fprintf(stderr, "usage: desk-lin <mc.so> [--dir DIR]\n");
			return 64;
		}
	}
	if (!library) {
		fprintf(stderr, "usage: desk-lin <mc.so> [--dir DIR]\n");
		return 64;
	}
	/* dlopen needs a path, not a bare name */
	char* path = realpath(library, NULL);
	if (!path) {
		fprintf(stderr, "desk-lin: %s: %s\n", library, strerror(errno));
		return 74;
	}
	char fallback[4096];
	if (!dir) {
		ssize_t n = readlink("/proc/self/exe", fallback, sizeof(fallback) - sizeof("/device"));
		char* slash;
		if (n <= 0 || !(slash = memrchr(fallback, '/', (size_t)n))) {
			fprintf(stderr, "desk-lin: cannot tell where this program is (for its device folder); give --dir DIR\n");
			return 74;
		}
		strcpy(slash, "/device");
		if (mkdir(fallback, 0755) < 0 && errno != EEXIST) {
			fprintf(stderr, "desk-lin: %s: %s\n", fallback, strerror(errno));
			return 74;
		}
		dir = fallback;
	}
	if (chdir(dir) < 0) {
		fprintf(stderr, "desk-lin: %s: %s\n", dir, strerror(errno));
		return 74;
	}

	gConsoleOut = dup(STDOUT_FILENO);
	dup2(STDERR_FILENO, STDOUT_FILENO);
	setvbuf(stdout, NULL, _IOLBF, 0);
	gTerminal = openTerminal();
	if (gTerminal < 0) {
		fprintf(stderr, "desk-lin: no pseudo-terminal for the console: %s\n", strerror(errno));
		return 74;
	}

	handle = dlopen(path, RTLD_NOW);
	if (!handle) {
		fprintf(stderr, "desk-lin: %s\n", dlerror());
		return 74;
	}
	launch = (txScreenLaunchProc)dlsym(handle, "fxScreenLaunch");
	if (!launch) {
		fprintf(stderr, "desk-lin: %s has no fxScreenLaunch: not a library built by mcconfig -p lin\n", path);
		return 74;
	}

	/* as PiuScreen's constructor does (modules/piu/PC/Screen/lin/piuScreen.c) */
	size = sizeof(txScreen) - 1 + (SCREEN_WIDTH * SCREEN_HEIGHT * screenBytesPerPixel);
	screen = calloc(1, size);
	if (!screen) {
		fprintf(stderr, "desk-lin: out of memory\n");
		return 74;
	}
	screen->abort = onAbort;
	screen->bufferChanged = onQuiet;
	screen->formatChanged = onQuiet;
	screen->post = onPost;
	screen->start = onStart;
	screen->stop = onStop;
	mxCreateMutex(&screen->workersMutex);
	screen->width = SCREEN_WIDTH;
	screen->height = SCREEN_HEIGHT;

	g_unix_fd_add(gTerminal, G_IO_IN | G_IO_HUP, onTerminal, NULL);
	g_unix_fd_add(STDIN_FILENO, G_IO_IN | G_IO_HUP, onStdin, NULL);

	(*launch)(screen);
	if (!screen->machine) {
		fprintf(stderr, "desk-lin: the XS machine was not created (the preloaded firmware could not be prepared)\n");
		return 70;
	}
	g_main_loop_run(g_main_loop_new(NULL, FALSE));
	return 0;
}
