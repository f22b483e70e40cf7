/* wake.h -- one daemon-wide signal that there may be work: the API after each
 * POST, a worker after each item; idle threads wait on it, not a fixed sleep. */
#ifndef WAKE_H
#define WAKE_H

/* The signal's generation now: take it before looking for work. */
unsigned wake_seen(void);

/* Something may be waiting: every wake_wait returns. */
void wake_all(void);

/*
 * Sleep until a wake_all after *seen was taken, or ms; *seen is then the
 * generation now. A wake between taking *seen and the call is not missed.
 */
void wake_wait(unsigned *seen, unsigned ms);

#endif
