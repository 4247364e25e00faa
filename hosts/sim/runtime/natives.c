/*
 * natives.c: the __native global, the C hotspots of modules/ (docs/sim-protocol.md).
 *
 * Creates __native (a plain object on the global) and calls each module's install
 * function inside its own host block; the install functions add their host functions
 * onto __native. A module that is not linked in leaves a weak default here that
 * installs nothing, so the firmware finds no function and uses its TypeScript fallback.
 */
#include "sim.h"

#if __has_include("xs_vecdot.h")
#include "xs_vecdot.h"
#endif
#if __has_include("xs_sha256.h")
#include "xs_sha256.h"
#endif
#if __has_include("xs_utf8.h")
#include "xs_utf8.h"
#endif

void xs_vecdot_install(xsMachine* the);
void xs_lexical_install(xsMachine* the);
void xs_sha256_install(xsMachine* the);
void xs_utf8_install(xsMachine* the);
void xs_mp3_install(xsMachine* the);
void xs_p256_install(xsMachine* the);

__attribute__((weak)) void xs_vecdot_install(xsMachine* the)
{
	(void)the;
}

__attribute__((weak)) void xs_lexical_install(xsMachine* the)
{
	(void)the;
}

__attribute__((weak)) void xs_sha256_install(xsMachine* the)
{
	(void)the;
}

__attribute__((weak)) void xs_utf8_install(xsMachine* the)
{
	(void)the;
}

/* modules/mp3/xs_mp3.c (minimp3) is built on either XS; the default stays for a runtime built without it. */
__attribute__((weak)) void xs_mp3_install(xsMachine* the)
{
	(void)the;
}

/* modules/p256/xs_p256.c defines it only when the SDK's crypt arithmetic was built in (DESK_HAVE_ARITH). */
__attribute__((weak)) void xs_p256_install(xsMachine* the)
{
	(void)the;
}

void simInstallNatives(txMachine* machine)
{
	void (*installs[])(xsMachine*) = { xs_vecdot_install, xs_lexical_install, xs_sha256_install, xs_utf8_install, xs_mp3_install, xs_p256_install };
	size_t i;
	{
		txMachine* the = machine;
		mxPush(mxObjectPrototype);
		fxNewObjectInstance(the);
		mxPush(mxGlobal);
		mxDefineID(fxID(the, "__native"), XS_DONT_ENUM_FLAG, XS_GET_ONLY);
		mxPop();
	}
	for (i = 0; i < sizeof(installs) / sizeof(installs[0]); i++) {
		xsBeginHost(machine);
		{
			(*installs[i])(the);
		}
		xsEndHost(machine);
	}
}
