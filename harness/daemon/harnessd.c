/* harnessd.c -- the daemon: serves the API, resolves submitted matrices, runs
 * the queue in guest slots, re-queues what a crash interrupted; the only
 * place that decides to exit.
 *
 * Folder daemon/: harnessd: the HTTP API, the queue behind it, the resolver
 * of submitted matrices, the bisector, the scheduler's guest slots, webhooks and its log.
 * It may call: base/ common/ conf/ vm/ spec/ store/ run/ analysis/.
 */
#include "daemon/api.h"
#include "conf/conf.h"
#include "base/err.h"
#include "base/lock.h"
#include "daemon/log.h"
#include "base/proc.h"
#include "base/textline.h"
#include "daemon/bisector.h"
#include "daemon/resolver.h"
#include "daemon/buildgate.h"
#include "daemon/scheduler.h"
#include "store/store.h"
#include "vm/vm.h"

#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

static const char usage[] =
	"usage: harnessd [-c harness.conf] [-n] [-D]\n"
	"  -c FILE   configuration (default ./harness.conf, else built-in defaults)\n"
	"  -n        check the configuration, print \"configuration OK\" and exit\n"
	"  -D        detach: run in the background, log to <results>/harnessd.log\n";

/*
 * Re-queue what the last daemon left in flight: it is interrupted, not lost
 * (no other daemon has it in flight: main holds the directory's lock).
 */
static int resume(const struct conf *c, char *err)
{
	struct store *s = NULL;
	unsigned n = 0;
	int rc;

	if (store_open_results(c->results, &s, err) < 0)
		return -1;
	rc = store_resume(s, &n, err);
	store_close(s);
	if (rc == 0 && n)
		hlog("%u run%s in flight when the last daemon stopped: marked interrupted and "
		     "queued again", n, n == 1 ? "" : "s");
	return rc;
}

/* Go on in a child of a new session; the lock (lock_fd) is the child's, its pid noted. */
static int detach(const struct conf *c, int lock_fd, char *err)
{
	char log[PATH_MAX];
	int fd;
	pid_t pid;

	if (pathf(log, err, "%s/harnessd.log", c->results) < 0)
		return -1;
	fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return errorf(err, "cannot open '%s'", log);
	pid = fork();
	if (pid < 0)
		return errorf(err, "fork failed");
	if (pid > 0)
		_exit(0);
	setsid();
	lock_note(lock_fd, "harnessd");
	dup2(fd, 2);
	close(fd);
	fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		close(fd);
	}
	return 0;
}

/* Block the stop signals in every thread; main waits for them with sigwait. */
static void block_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, set, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/*
 * The daemon's life: the queue resumed, then the API, the scheduler, the
 * resolver and the bisector started; it waits for SIGTERM or SIGINT (SIGHUP
 * is logged) and stops them in the order their dependencies need.
 */
static int serve(const struct conf *c, char *err)
{
	struct api *api = NULL;
	struct sched *sc = NULL;
	struct resolver *rs = NULL;
	struct bisector *bs = NULL;
	struct buildgate gate;
	char log[PATH_MAX];
	sigset_t set;
	int sig = 0;

	block_signals(&set);
	buildgate_init(&gate);
	if (resume(c, err) < 0 || pathf(log, err, "%s/libvirt.log", c->results) < 0 ||
	    api_start(c, &api, err) < 0 || sched_start(c, log, &gate, &sc, err) < 0 ||
	    resolver_start(c, &gate, &rs, err) < 0 || bisector_start(c, &gate, &bs, err) < 0) {
		api_stop(api);
		resolver_stop(rs);
		sched_stop(sc);
		buildgate_destroy(&gate);
		return -1;
	}
	api_set_sched(api, sc);
	hlog("serving on %s%s%s", c->api_socket, c->api_tcp[0] ? " and " : "", c->api_tcp);
	while (sigwait(&set, &sig) == 0 && sig == SIGHUP)
		hlog("SIGHUP: nothing to reload; restart to change the configuration");
	hlog("signal %d: stopping; runs in flight end interrupted and are queued again", sig);
	api_stop(api);   /* first: its /health reads the scheduler's pause */
	bisector_stop(bs);   /* before the scheduler: it waits on the runs of its step */
	sched_stop(sc);
	resolver_stop(rs);
	buildgate_destroy(&gate);
	hlog("stopped");
	return 0;
}

int main(int argc, char **argv)
{
	const char *conf_path = NULL;
	int check = 0, bg = 0, lock = -1, opt;
	struct conf c;
	char err[ERR_MAX];

	while ((opt = getopt(argc, argv, "c:nDh")) != -1) {
		switch (opt) {
		case 'c': conf_path = optarg; break;
		case 'n': check = 1; break;
		case 'D': bg = 1; break;
		default:
			fputs(usage, opt == 'h' ? stdout : stderr);
			return opt == 'h' ? 0 : 1;
		}
	}
	if (optind != argc) {
		fputs(usage, stderr);
		return 1;
	}
	setvbuf(stderr, NULL, _IOLBF, 0);
	if (conf_setup(&c, conf_path, err) < 0 || conf_check_daemon(&c, conf_path, err) < 0 ||
	    (check && api_check(&c, conf_path, err) < 0)) {   /* what api_start would refuse */
		escape_line(stderr, "harnessd: %s", err);
		return 1;
	}
	if (check) {
		printf("configuration OK\n");
		return 0;
	}
	/* before the database is touched, and on the terminal even with -D */
	if (lock_take(c.results, "harnessd", &lock, err) < 0) {
		escape_line(stderr, "harnessd: %s", err);
		return 1;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if ((bg && detach(&c, lock, err) < 0) || serve(&c, err) < 0) {
		hlog("%s", err);
		return 1;
	}
	curl_global_cleanup();
	close(lock);
	return 0;
}
