/* main.c — the scanmap binary: everything else lives in libscanmap.a.
 * Only the process installs signal handlers: those of io/outfile.h, which
 * remove unfinished output files and die of the signal received. */
#include "io/outfile.h"
#include "mapper/cli.h"
#include "io/log.h"

int main(int argc, char **argv)
{
	if (sm_outfile_catch_signals() < 0)
		sm_log(SM_LOG_WARNING, "cannot install the signal handlers: an interrupted "
		       "run may leave its temporary output file");
	return sm_main(argc, argv);
}
