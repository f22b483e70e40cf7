/* bench_boot_init.c -- /init of the bare boot tests/bench_boot.sh compares the
 * harness with: says it started on the serial console, then powers off. */
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <unistd.h>

int main(void)
{
	static const char line[] = "\nbench-bare-init\n";
	int fd;

	mount("dev", "/dev", "devtmpfs", 0, NULL);
	fd = open("/dev/ttyS0", O_WRONLY | O_NOCTTY);
	if (fd >= 0 && write(fd, line, strlen(line)) < 0)
		fd = -1;
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}
