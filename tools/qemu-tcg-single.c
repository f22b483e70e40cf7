/* qemu-tcg-single.c -- the <emulator> of a TCG guest on a QEMU before 8.1: execs the
 * real qemu-system-ARCH (fixed at build time) with -accel tcg made tcg,thread=single. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef QEMU_REAL
#error "build with -DQEMU_REAL='\"/usr/bin/qemu-system-ARCH\"'"
#endif

/* "tcg" or "tcg,...": a TCG accelerator that does not name its threading yet. */
static int tcg_without_thread(const char *opt)
{
	return (!strcmp(opt, "tcg") || !strncmp(opt, "tcg,", 4)) && !strstr(opt, "thread=");
}

/*
 * argv as it came (libvirt's capability probe has no -accel and passes as
 * it is), each "-accel tcg[,...]" given ",thread=single"; no shell, and no
 * other path than QEMU_REAL is ever run.
 */
int main(int argc, char **argv)
{
	char **args = calloc((size_t)argc + 1, sizeof(*args));
	int i;

	if (!args)
		return 127;
	args[0] = (char *)QEMU_REAL;
	for (i = 1; i < argc; i++) {
		args[i] = argv[i];
		if ((!strcmp(argv[i - 1], "-accel") || !strcmp(argv[i - 1], "--accel")) &&
		    tcg_without_thread(argv[i])) {
			size_t n = strlen(argv[i]) + sizeof(",thread=single");

			if (!(args[i] = malloc(n)))
				return 127;
			snprintf(args[i], n, "%s,thread=single", argv[i]);
		}
	}
	execv(QEMU_REAL, args);
	perror("qemu-tcg-single: " QEMU_REAL);
	return 127;
}
