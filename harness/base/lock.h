/* lock.h -- one writer per results directory (harness.lock), and the build
 * gate every process on it passes: compiles and measured blocks never overlap. */
#ifndef LOCK_H
#define LOCK_H

#include <limits.h>
#include <stdatomic.h>

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

/*
 * The build gate of a results directory, across processes (harnessd, harness
 * run, harness check, ...): a compile waits while a measured block is in
 * flight, and a block while a compile is on; blocks share the gate, and so
 * any number of them run at once. Two flock()ed files, so a holder that dies
 * lets go with its process:
 *   build.lock  shared by each measured block, exclusive by a compile;
 *   build.turn  exclusive by a compile from before it waits for the blocks in
 *               flight until it ends (its pid and program written in it); a
 *               block passes it shared on its way in, so no new block starts
 *               while a compile waits, and a compile is never starved.
 * Each holder (a thread that compiles, a guest slot) has a buildlock of its
 * own: flock conflicts between open files, even in one process.
 */
#define BUILDLOCK_FILE "build.lock"
#define BUILDLOCK_TURN "build.turn"
#define BUILDLOCK_POLL_MS 100    /* a waiter tries again (and looks at stop) this often */

enum buildlock_as { BUILDLOCK_MEASURING, BUILDLOCK_BUILDING };

struct buildlock {
	int lock, turn;          /* the files, open; -1 when closed */
	int held;                /* 0, or 1 + the enum buildlock_as it is held as */
	char who[32];            /* "harnessd", "harness check": written while building */
	char path[PATH_MAX];     /* of build.lock, for messages */
};

/* A progress line: "waits for ..." when the gate is taken. */
typedef void (*buildlock_tell_fn)(void *arg, const char *line);

/*
 * Open (creating, 0600) the gate's two files under results for program who,
 * never through a symlink (O_NOFOLLOW, regular files only), O_CLOEXEC so no
 * child or guest holds them. 0, or -1 with one line in err.
 */
int buildlock_open(struct buildlock *l, const char *results, const char *who, char *err);

/* Let go (if held) and close. A closed one (fds -1) is fine. */
void buildlock_close(struct buildlock *l);

/*
 * Pass the gate as a measured block or a compile: returns once no compile
 * (measuring) or no block and no other compile (building) holds it. If it
 * has to wait, one line through tell first (may be NULL), saying what for.
 * Waits for good unless stop (may be NULL) becomes set: then -1 and nothing
 * held. -1 with err too if flock fails (not for contention).
 */
int buildlock_take(struct buildlock *l, enum buildlock_as as, buildlock_tell_fn tell,
		   void *arg, atomic_int *stop, char *err);

/* Let go of what buildlock_take took; nothing held is fine. */
void buildlock_drop(struct buildlock *l);

#endif
