/*
 * main.c: the simulator runtime's entry point (build/sim/xsim).
 *
 *   xsim [--heap-max BYTES] [--assets FILE] [--standalone] <bundle.js> [args...]
 *
 * Owns: the arguments, the XS machine's creation record, reading and parsing the bundle
 * (a classic script; unreadable or unparsable: exit 74), running it as a program (an
 * exception: exit 70), then handing over to the loop (loop.c), which never returns.
 * Also the exits (simExit flushes fd 1 first) and the report of an exception on fd 2.
 */
#include "sim.h"
#include "xsScript.h"
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>

txMachine* gSimMachine = NULL;
int gSimStandalone = 0;
size_t gSimHeapMax = 32u * 1024u * 1024u;

void simExit(int code)
{
	simOutFlush();
	fflush(stderr);
	_exit(code);
}

static void printLines(const char* prefix, const char* text)
{
	while (*text) {
		while (*text == ' ')
			text++;
		const char* end = strchr(text, '\n');
		size_t length = end ? (size_t)(end - text) : strlen(text);
		fprintf(stderr, "%s%.*s\n", prefix, (int)length, text);
		text += length;
		if (*text == '\n')
			text++;
	}
}

void simReportException(txMachine* the, txSlot* exception, const char* what, int withStack)
{
	txSlot* value;
	simOutFlush();
	mxPushSlot(exception);
	value = the->stack;
	mxTry(the) {
		txSlot* text;
		mxPushSlot(value);
		text = the->stack;
		fxToString(the, text);
		fprintf(stderr, "xsim: %s: ", what);
		printLines("", text->value.string);
		if (withStack && mxIsReference(value)) {
			txSlot* stack;
			mxPushSlot(value);
			mxGetID(mxID(_stack));
			stack = the->stack;
			if ((stack->kind == XS_STRING_KIND) || (stack->kind == XS_STRING_X_KIND)) {
				const char* lines = stack->value.string;
				size_t length = strlen(text->value.string);
				/* XS's stack starts with String(e): print only the frames */
				if (!strncmp(lines, text->value.string, length) && (lines[length] == '\n' || lines[length] == 0))
					lines += length;
				while (*lines == '\n')
					lines++;
				printLines("    ", lines);
			}
			mxPop();
		}
		mxPop();
	}
	mxCatch(the) {
		fprintf(stderr, "xsim: %s (the exception could not be turned into a string)\n", what);
	}
	mxPop();
	fflush(stderr);
}

static XS_FUNCTION_NORETURN void usage(const char* message)
{
	if (message)
		fprintf(stderr, "xsim: %s\n", message);
	fprintf(stderr, "usage: xsim [--heap-max BYTES] [--assets FILE] [--standalone] <bundle.js> [args...]\n");
	exit(2);
}

static size_t parseSize(const char* text)
{
	char* end;
	double value = strtod(text, &end);
	if (end == text || !(value > 0))
		usage("--heap-max wants a positive number of bytes (suffixes k, m, g allowed)");
	if (*end == 'k' || *end == 'K') { value *= 1024; end++; }
	else if (*end == 'm' || *end == 'M') { value *= 1024 * 1024; end++; }
	else if (*end == 'g' || *end == 'G') { value *= 1024.0 * 1024 * 1024; end++; }
	if (*end || value > (double)SIZE_MAX / 2)
		usage("--heap-max wants a positive number of bytes (suffixes k, m, g allowed)");
	return (size_t)value;
}

static __attribute__((noinline)) char* readBundle(const char* path, size_t* length)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char* buffer;
	size_t offset = 0;
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "xsim: cannot read the bundle %s: %s\n", path, strerror(errno));
		simExit(SIM_EXIT_BUNDLE);
	}
	buffer = malloc((size_t)st.st_size + 1);
	if (!buffer) {
		fprintf(stderr, "xsim: the bundle %s is too large\n", path);
		simExit(SIM_EXIT_BUNDLE);
	}
	while (offset < (size_t)st.st_size) {
		ssize_t count = read(fd, buffer + offset, (size_t)st.st_size - offset);
		if (count < 0 && errno == EINTR)
			continue;
		if (count <= 0) {
			fprintf(stderr, "xsim: cannot read the bundle %s: %s\n", path, count ? strerror(errno) : "short read");
			simExit(SIM_EXIT_BUNDLE);
		}
		offset += (size_t)count;
	}
	close(fd);
	buffer[offset] = 0;
	*length = offset;
	return buffer;
}

typedef struct {
	const unsigned char* bytes;
	size_t offset;
	size_t size;
} BundleStream;

static int bundleGetter(void* it)
{
	BundleStream* stream = it;
	if (stream->offset < stream->size)
		return stream->bytes[stream->offset++];
	return C_EOF;
}

static void reportParserError(void* console, txString path, txInteger line, txString format, c_va_list arguments)
{
	(void)console;
	fprintf(stderr, "%s:%d: error: ", path ? path : "?", (int)line);
	vfprintf(stderr, format, arguments);
	fprintf(stderr, "\n");
}

static void reportParserWarning(void* console, txString path, txInteger line, txString format, c_va_list arguments)
{
	(void)console;
	fprintf(stderr, "%s:%d: warning: ", path ? path : "?", (int)line);
	vfprintf(stderr, format, arguments);
	fprintf(stderr, "\n");
}

/* Parses the bundle as a program; NULL when it has errors (reported on fd 2 by XS). */
static txScript* parseBundle(txMachine* the, const char* source, size_t length, const char* path)
{
	txParser _parser;
	txParser* parser = &_parser;
	txParserJump jump;
	txScript* volatile script = NULL;
	txInteger errors;
	BundleStream stream = { (const unsigned char*)source, 0, length };
	fxInitializeParser(parser, the, the->parserBufferSize, the->parserTableModulo);
	parser->reportError = reportParserError;
	parser->reportWarning = reportParserWarning;
	parser->firstJump = &jump;
	if (c_setjmp(jump.jmp_buf) == 0) {
		parser->path = fxNewParserSymbol(parser, (txString)path);
#ifdef mxDebug
		fxParserTree(parser, &stream, bundleGetter, mxProgramFlag | mxDebugFlag, NULL);
#else
		fxParserTree(parser, &stream, bundleGetter, mxProgramFlag, NULL);
#endif
		if (parser->errorCount == 0) {
			fxParserHoist(parser);
			fxParserBind(parser);
		}
		if (parser->errorCount == 0)
			script = fxParserCode(parser);
	}
	errors = parser->errorCount;
	fxTerminateParser(parser);
	if (errors || !script) {
		if (script)
			fxDeleteScript(script);
		return NULL;
	}
	return script;
}

static void seedRandom(void)
{
	unsigned int seed;
	const char* fixed = getenv("XSIM_SEED");
	if (fixed && *fixed)
		seed = (unsigned int)strtoul(fixed, NULL, 10);
	else if (getrandom(&seed, sizeof(seed), 0) != sizeof(seed))
		seed = (unsigned int)time(NULL) ^ (unsigned int)getpid();
	srand(seed);
}

int main(int argc, char* argv[])
{
	/* designated: XS 17 (the SDK's) adds nativeStackSize, which stays 0 (the default) */
	xsCreation creation = {
		.initialChunkSize = 256 * 1024,
		.incrementalChunkSize = 256 * 1024,
		.initialHeapCount = 8 * 1024,       /* slots of 32 bytes */
		.incrementalHeapCount = 64 * 1024,  /* 2 MB steps. Every collection here marks the
		                        ~2.9 MB of code and module objects a device keeps preloaded in
		                        flash and never marks; with 256 KB steps the simulator collected
		                        after every 256 KB allocated and a turn's figure measured that
		                        (median 11-12 ms against 7-8 ms; docs/decisions.md, Simulator) */
		.stackCount = 32768,                /* an esbuild IIFE holds every module-level declaration of the bundle in one function, one stack slot each */
		.initialKeyCount = 4096,
		.incrementalKeyCount = 4096,        /* keys grow */
		.nameModulo = 1993,
		.symbolModulo = 127,
		.parserBufferSize = 4 * 1024 * 1024, /* the longest token (string literal) of a script */
		.parserTableModulo = 1993,
		.staticSize = 0,
	};
	const char* path = NULL;
	const char* assets = NULL;
	int argi, extra;
	char* source;
	size_t length;
	txMachine* machine;

	simMonoMs();
	for (argi = 1; argi < argc; argi++) {
		if (!strcmp(argv[argi], "--standalone"))
			gSimStandalone = 1;
		else if (!strcmp(argv[argi], "--heap-max")) {
			if (++argi >= argc)
				usage("--heap-max wants a value");
			gSimHeapMax = parseSize(argv[argi]);
		}
		else if (!strncmp(argv[argi], "--heap-max=", 11))
			gSimHeapMax = parseSize(argv[argi] + 11);
		else if (!strcmp(argv[argi], "--assets")) {
			if (++argi >= argc)
				usage("--assets wants a file");
			assets = argv[argi];
		}
		else if (!strcmp(argv[argi], "--help") || !strcmp(argv[argi], "-h"))
			usage(NULL);
		else if (!strcmp(argv[argi], "--"))
			{ argi++; break; }
		else if (argv[argi][0] == '-' && argv[argi][1])
			usage("unknown option");
		else
			break;
	}
	if (argi >= argc)
		usage("no bundle");
	path = argv[argi++];
	extra = argi;

	seedRandom();
	/* Die with the board: a board killed outright must not leave a firmware
	   spinning as an orphan (the device has no life without its board). */
	if (!gSimStandalone) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			simExit(SIM_EXIT_PIPE);
	}
	simPipeOpen();
	if (assets && simMapAssets(assets) < 0)
		simExit(SIM_EXIT_BUNDLE);
	source = readBundle(path, &length);

	machine = xsCreateMachine(&creation, "xsim", NULL);
	if (!machine) {
		fprintf(stderr, "xsim: cannot create the XS machine\n");
		simExit(SIM_EXIT_MEMORY);
	}
	gSimMachine = machine;
	xsBeginHost(machine);
	{
		txMachine* the = machine;
		txScript* script;
		simInstallSim(the, argc - extra, argv + extra);
		simInstallNatives(the);
		simInstallAssets(the);
		simLoopInit(the);
		script = parseBundle(the, source, length, path);
		free(source);
		if (!script) {
			fprintf(stderr, "xsim: the bundle %s could not be parsed\n", path);
			simExit(SIM_EXIT_BUNDLE);
		}
		mxTry(the) {
			txSlot* realm = mxProgram.value.reference->next->value.module.realm;
			mxModuleInstanceInternal(mxProgram.value.reference)->value.module.id = fxID(the, (txString)path);
			fxRunScript(the, script, mxRealmGlobal(realm), C_NULL, mxRealmClosures(realm)->value.reference, C_NULL, mxProgram.value.reference);
			mxPop();
		}
		mxCatch(the) {
			simReportException(the, &mxException, "unhandled exception", 1);
			simExit(SIM_EXIT_EXCEPTION);
		}
		simRunLoop(the);
	}
	xsEndHost(machine);
	return 0;
}
