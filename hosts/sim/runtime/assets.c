/*
 * assets.c: the firmware image's read-only data (docs/sim-protocol.md, "Assets").
 *
 * `xsim --assets FILE` maps FILE (the assets region the board extracted from the booting
 * slot's image) read-only and sets __sim.assets to a host buffer over it; without the option
 * __sim.assets is undefined. Typed arrays made on that buffer read the mapped pages, so the
 * data is never copied into the XS heap: the simulator's stand-in for the device reading its
 * flash resources in place (hosts/esp32, Resource). The mapping lives as long as the process.
 */
#include "sim.h"
#include <sys/mman.h>
#include <sys/stat.h>

static void* gAssets = NULL;
static size_t gAssetsSize = 0;

int simMapAssets(const char* path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "xsim: cannot read the assets %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (st.st_size > 0) {
		void* map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			fprintf(stderr, "xsim: cannot map the assets %s: %s\n", path, strerror(errno));
			close(fd);
			return -1;
		}
		gAssets = map;
		gAssetsSize = (size_t)st.st_size;
	}
	close(fd);
	return 0;
}

static void assetsDestructor(void* data)
{
	(void)data; /* the mapping stays for the life of the process */
}

void simInstallAssets(txMachine* machine)
{
	if (!gAssets)
		return;
	xsBeginHost(machine);
	{
		xsVars(2);
		xsVar(0) = xsNewHostObject(assetsDestructor);
		xsSetHostBuffer(xsVar(0), gAssets, (xsIntegerValue)gAssetsSize);
		xsPetrifyHostBuffer(xsVar(0));
		xsVar(1) = xsGet(xsGlobal, xsID("__sim"));
		xsDefine(xsVar(1), xsID("assets"), xsVar(0), xsDontDelete | xsDontSet);
	}
	xsEndHost(machine);
}
