/* fdio.h -- whole writes to a file descriptor, for the agent and its fault
 * hooks: the channel, sysfs and procfs files. */
#ifndef FDIO_H
#define FDIO_H

#include <stddef.h>
#include <stdint.h>

/*
 * Write all len bytes of buf to fd, again after EINTR and short writes.
 * Returns 0, or -1 with errno set (a write of nothing counts as failure).
 */
int write_all(int fd, const char *buf, size_t len);

/*
 * Write text to a sysfs/procfs/cgroupfs file in one write, as the kernel
 * wants. Returns 0, or the errno of the open or write that failed (EAGAIN
 * and EINVAL from memory.reclaim are answers, not accidents).
 */
int write_text(const char *path, const char *text);

/*
 * At most len - 1 bytes of a small file (sysfs, procfs) into buf, trailing
 * whitespace cut. Returns 0, or the errno of the open or read that failed.
 */
int read_text(const char *path, char *buf, size_t len);

/*
 * A file that holds one count (sysfs, debugfs: "123\n") into *v: 0, the
 * errno of the open or read that failed, or EINVAL when the text is not a
 * decimal count below 2^63.
 */
int read_count(const char *path, uint64_t *v);

/*
 * The whole of fd from offset 0 (a proc, sysfs or cgroup file read again
 * each interval) into buf of max + 1 bytes, its length into *len: 0, or
 * -1 with errno (EFBIG: longer than max).
 */
int read_whole(int fd, char *buf, size_t max, size_t *len);

#endif
