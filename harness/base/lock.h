/* lock.h -- one writer per results directory: an exclusive flock on
 * <results>/harness.lock, held for the process's life, its holder's pid in it. */
#ifndef LOCK_H
#define LOCK_H

#define LOCK_FILE "harness.lock"

/*
 * Take the lock of results for program who ("harnessd", "harness run") before
 * anything in results is touched: *ret_fd is the lock (close it to let go;
 * O_CLOEXEC, so no guest or child holds it). If another process holds it,
 * -1 and one line in err naming the directory and the holder's pid and
 * program; nothing is written then.
 */
int lock_take(const char *results, const char *who, int *ret_fd, char *err);

/*
 * Write "PID WHO" into the lock the caller holds (again after a fork). Best
 * effort: on a full disk the file stays empty (a refusal says "pid unknown")
 * and the lock is held all the same.
 */
void lock_note(int fd, const char *who);

#endif
