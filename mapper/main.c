/* main.c — the scanmap binary: everything else lives in libscanmap.a. */
#include "mapper/cli.h"

int main(int argc, char **argv)
{
	return sm_main(argc, argv);
}
