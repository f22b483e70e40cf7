/* runner.c -- the life of one run: prepare the disk and initrd, boot, hand
 * the agent its job, check and store every message, tear the guest down. */
#include "run/runner.h"
#include "analysis/summary.h"
#include "vm/channel.h"
#include "vm/console.h"
#include "base/err.h"
#include "vm/image.h"
#include "base/proc.h"
#include "store/store_noise.h"
#include "store/store_phases.h"
#include "run/budget.h"
#include "run/phases.h"
#include "run/pressure.h"
#include "run/quiet.h"
#include "run/saved.h"
#include "store/store_pressure.h"
#include "common/fmt.h"
#include "common/mthp.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* The nodes a sample announced and what came of them; each node's newest seq. */
struct lru_turn {
	uint64_t expect, seen;                   /* PROTO_LRU announced, arrived */
	uint64_t pages;                          /* anon + file over the interval's nodes */
	uint64_t window_max, youngest;           /* the sample's max_seq; the nodes' largest */
	int64_t last_nid;                        /* the interval's previous node, -1 */
	int64_t nid[LRUGEN_MAX_NODES];           /* node i's nid in the last interval, -1 */
	uint64_t max_seq[LRUGEN_MAX_NODES];      /* and its youngest generation */
};

struct run_ctx {
	struct runner *r;
	const struct matrix *m;
	const struct arm *arm;
	const struct cell *cell;
	int64_t id;
	unsigned block;                          /* its ABBA block: which of the arm's saves */
	char dir[PATH_MAX], console[PATH_MAX], overlay[PATH_MAX], initrd[PATH_MAX];
	char sock[PATH_MAX], disk[PATH_MAX];
	char name[64], cmdline[512];             /* the domain's (booted), its command line */
	struct vm_domain *dom;
	struct channel ch;
	int64_t t_boot;
	uint64_t next_seq, last_t, ops;
	unsigned events;
	uint64_t stream_next[PROTO_MAX_STREAMS]; /* the first interval a stream may still send */
	uint32_t op_seen[PROTO_MAX_STREAMS];     /* op samples of the current interval */
	uint32_t op_total_seen[PROTO_MAX_STREAMS];
	uint64_t page_size;                      /* the guest's, from its hello */
	struct lru_turn lru;                     /* the PROTO_LRU of the last sample */
	int tracing;                             /* the guest said its trace is on */
	uint64_t trace_idx, trace_lost, trace_refused;   /* events stored; counts so far */
	/* bit per source: its start, a change, its end came (each may take several messages) */
	unsigned counters_started, counters_changed, counters_ended;
	struct budget budget;                    /* what the guest may send, from the job */
	struct proto_summary summary;
	struct run_outcome *out;
	struct run_phases ph;
	struct proto_hello hello;                /* the agent's, from its boot */
	struct saved save;                       /* start "restore": the arm's saved guest */
	struct pressure_point *press;            /* the host's, as the job went and per sample */
	size_t npress, cap_press;
	int press_off;                           /* a pressure file could not be read: not judged */
	char dberr[ERR_MAX];         /* why the database refused a write (stages return -2) */
};

/* Record why the run ended as status; returns -1 so stages can `return fail(...)`. */
static int fail_as(struct run_ctx *c, const char *status, int infra, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail_as(struct run_ctx *c, const char *status, int infra, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfmtcut(c->out->reason, sizeof(c->out->reason), fmt, ap);
	va_end(ap);
	fmtcut(c->out->status, sizeof(c->out->status), "%s", status);
	c->out->infra = infra;
	return -1;
}

#define fail(c, ...)       fail_as(c, "failed", 0, __VA_ARGS__)
#define fail_infra(c, ...) fail_as(c, "failed", 1, __VA_ARGS__)

/* A message over one of the guest's budgets (why): its run fails as the guest's. */
static int over_budget(struct run_ctx *c, const char *why)
{
	return fail(c, "guest over budget: %s", why);
}

/*
 * The run's directory and the paths in it, the base initramfs, the data disk
 * and this kernel's initramfs (cached); a failure is the host's.
 */
static int prepare(struct run_ctx *c)
{
	const struct conf *conf = c->r->conf;
	char err[ERR_MAX], cache[PATH_MAX], base[PATH_MAX];

	if (pathf(c->dir, err, "%s/runs/%lld", conf->results, (long long)c->id) < 0 ||
	    pathf(c->console, err, "%s/console.log", c->dir) < 0 ||
	    pathf(c->overlay, err, "%s/overlay.qcow2", c->dir) < 0 ||
	    pathf(c->sock, err, "%s/channel.sock", c->dir) < 0 ||
	    pathf(cache, err, "%s/cache", conf->results) < 0 ||
	    mkdir_p(c->dir, err) < 0)
		return fail_infra(c, "%s", err);
	unlink(c->console);
	unlink(c->sock);
	if (image_base(conf->images, c->cell->arch, base, err) < 0 ||
	    image_data_disk(cache, &c->cell->job, c->disk, err) < 0 ||
	    image_initrd_cached(cache, base, spec_files(c->arm, c->cell)->modules, c->initrd,
				err) < 0)
		return fail_infra(c, "%s", err);
	return 0;
}

/*
 * What measures the run, stored as it boots (store_run_machine): the host's
 * facts into f, and the TCG threading its guest gets, into cfg.
 */
static int record_machine(struct run_ctx *c, struct vm_config *cfg, struct vm_host_facts *f)
{
	char why[256], pin[256];
	struct store_machine m;

	vm_conn_facts(c->r->vm, cfg->arch, f);
	cfg->tcg_thread = vm_tcg_threading_on(f, cfg->accel, cfg->vcpus, c->r->conf->tcg_thread,
					      why, sizeof(why));
	vm_pinning_str(vm_is_local(c->r->vm) ? cfg->first_cpu : -1, cfg->vcpus,
		       !strcmp(cfg->tcg_thread, "single"), pin, sizeof(pin));
	m = (struct store_machine){ .qemu = f->qemu, .libvirt = f->libvirt,
				    .tcg_thread = cfg->tcg_thread, .kernel = f->kernel,
				    .cpu_model = f->cpu_model, .cpus = f->cpus, .vcpu_pin = pin };
	return store_run_machine(c->r->store, c->id, &m, c->dberr) < 0 ? -2 : 0;
}

/* The run's domain: cfg points into c (its name and command line). */
static void run_config(struct run_ctx *c, struct vm_config *cfg)
{
	/* a guest of another architecture than the host's runs under TCG */
	const char *accel = vm_accel_for(c->cell->arch, vm_conn_arch(c->r->vm), c->r->accel);

	*cfg = (struct vm_config){
		.name = c->name, .arch = c->cell->arch, .accel = accel,
		.memory_mib = c->m->memory_mib, .vcpus = c->m->vcpus,
		.kernel = spec_files(c->arm, c->cell)->kernel, .initrd = c->initrd,
		.cmdline = c->cmdline,
		.backing = c->disk, .disk = c->overlay, .vol = c->name, .console = c->console,
		.channel = c->sock, .first_cpu = c->r->first_cpu,
	};
	/* an int and a long long: 44 bytes at most */
	if (fmtbuf(c->name, sizeof(c->name), "harness-%d-run-%lld", (int)getpid(),
		   (long long)c->id) < 0)
		c->name[0] = '\0';     /* cannot be; libvirt refuses a domain without a name */
	/* loglevel=6: the console keeps levels 0-5: every line of a panic,
	 * oops, BUG or WARNING (their registers and traces are KERN_DEFAULT,
	 * 4) and the notices (the kernel's banner); the boot's few hundred
	 * info lines, each byte a trapped port write under TCG, stay in the
	 * kernel's buffer. An arm's own loglevel= comes later and wins. */
	if (fmtbuf(c->cmdline, sizeof(c->cmdline), "console=%s loglevel=6 panic=-1 %s",
		   vm_console_device(c->cell->arch), c->arm->cmdline) < 0)
		c->cmdline[0] = '\0';   /* cannot be: the assertion below */
}
/* the harness's options (under 64 bytes) and the arm's whole cmdline fit */
_Static_assert(sizeof(((struct run_ctx *)0)->cmdline) >= 64 + sizeof(((struct arm *)0)->cmdline),
	       "a run's command line holds its arm's");

/* The guest's channel, once its domain runs, attached to c->ch. */
static int attach_channel(struct run_ctx *c)
{
	char err[ERR_MAX];
	int fd;

	if (vm_open_channel(c->dom, c->t_boot + 10000, &fd, err) < 0)
		return fail_infra(c, "%s", err);
	if (channel_attach(&c->ch, fd, err) < 0) {
		close(fd);
		return fail_infra(c, "%s", err);
	}
	return 0;
}

/* The domain defined and started, then its channel attached. */
static int boot(struct run_ctx *c, const struct vm_config *cfg)
{
	char err[ERR_MAX];

	c->t_boot = now_ms();
	if (vm_start(c->r->vm, cfg, &c->dom, err) < 0)
		return fail_infra(c, "%s", err);
	phases_mark(&c->ph, PH_DEFINE);
	return attach_channel(c);
}

static int next_msg(struct run_ctx *c, struct proto_msg *msg, int64_t deadline, const char *what);

/* Wait for one message of the wanted type; an agent error ends the run. */
static int expect(struct run_ctx *c, enum proto_type want, struct proto_msg *msg,
		  int64_t deadline, const char *what)
{
	if (next_msg(c, msg, deadline, what) < 0)
		return -1;
	if (msg->type != want)
		return fail(c, "guest sent message type %d, expected its %s", msg->type, what);
	return 0;
}

/* The agent's hello h, from this boot or the save's: stored, then checked. */
static int take_hello(struct run_ctx *c, const struct proto_hello *h)
{
	c->hello = *h;
	if (store_run_hello(c->r->store, c->id, h, c->out->agent_ready_ms, c->dberr) < 0)
		return -2;
	c->page_size = h->page_size ? h->page_size : 4096;
	if (h->proto != PROTO_VERSION)
		return fail(c, "guest agent speaks protocol %llu, harness %d",
			    (unsigned long long)h->proto, PROTO_VERSION);
	if (strcmp(h->release, spec_files(c->arm, c->cell)->release))
		return fail(c, "guest runs kernel '%s', arm '%s' expects '%s'", h->release,
			    c->arm->name, spec_files(c->arm, c->cell)->release);
	if (strcmp(h->arch, c->cell->arch))
		return fail(c, "guest reports arch '%s', cell '%s' is for '%s'", h->arch,
			    c->cell->name, c->cell->arch);
	return 0;
}

/*
 * What the console says of a guest that never said hello: 1 if it printed a
 * crash (the kernel's finding: conclude() says so), else 0 with the agent's
 * own last error quoted in said, or failing that the console's last line (a
 * remote run's console is fetched only later).
 */
static int console_said(const struct run_ctx *c, char *said, size_t len)
{
	struct console_report rep;

	if (console_scan(c->console, &rep) == 0 && rep.crashed)
		return 1;
	if (rep.agent[0])
		fmtcut(said, len, "its agent said '%s'", rep.agent);
	else if (rep.last[0])
		fmtcut(said, len, "its console's last line is '%s'", rep.last);
	else
		fmtcut(said, len, "nothing on its console here");
	return 0;
}

/*
 * No hello from the guest: it ended (gone) or its time ran out. With a crash
 * printed, the kernel's (a failure or a timeout). Without, the harness's,
 * retried: a stock kernel's boot stalled so once in a CI run of the suite
 * here (none in 500 boot-stress boots), and once an agent gave up on a
 * channel port that never came, right after a daemon's kill -9 and restart.
 * A kernel that hangs at every boot still ends as a timeout, at its last try.
 */
static int no_hello(struct run_ctx *c, int gone)
{
	char said[240];
	int crashed = console_said(c, said, sizeof(said));

	if (gone && crashed)
		return fail(c, "guest went away before its hello (see %s)", c->console);
	if (gone)
		return fail_infra(c, "guest went away before its hello and printed no crash (%s): the "
				  "agent did not start, which QEMU, the host or the harness can cause: "
				  "retried up to retries times (see %s)", said, c->console);
	if (crashed)
		return fail_as(c, "timeout", 0, "timeout: no hello from the guest in time (see %s)",
			       c->console);
	return fail_as(c, "timeout", 1, "timeout: no hello from the guest in %" PRIu64 " s and no crash "
		       "printed (%s); QEMU or the host can stall a boot so: the harness's failure, "
		       "retried up to retries times (see %s)", c->r->conf->boot_timeout_s, said,
		       c->console);
}

/*
 * The agent's hello within boot_timeout_s of the start: its time and the
 * guest's boot phases recorded, then taken.
 */
static int await_hello(struct run_ctx *c)
{
	struct proto_msg msg;

	if (expect(c, PROTO_HELLO, &msg, c->t_boot + (int64_t)c->r->conf->boot_timeout_s * 1000,
		   "hello") < 0)
		return -1;
	c->out->agent_ready_ms = now_ms() - c->t_boot;
	phases_mark(&c->ph, PH_AGENT);
	phases_from_hello(&c->ph, &msg.u.hello, c->ph.at[PH_AGENT]);
	return take_hello(c, &msg.u.hello);
}

/* Boot cfg's guest to its hello: a run's start "boot". */
static int start_boot(struct run_ctx *c, const struct vm_config *cfg)
{
	int rc;

	if (store_run_start(c->r->store, c->id, "boot", NULL, -1, c->dberr) < 0)
		return -2;
	rc = boot(c, cfg);
	return rc ? rc : await_hello(c);
}

/*
 * The arm's guest booted to its hello, then saved into c->save for the
 * arm's later runs (the overlay it booted on becomes the save's disk).
 */
static int make_save(struct run_ctx *c, const struct vm_config *cfg)
{
	struct proto_msg msg = { .type = PROTO_HELLO };
	char line[PROTO_LINE_MAX], err[ERR_MAX];
	int rc = boot(c, cfg);

	if (rc || (rc = await_hello(c)))
		return rc;
	msg.u.hello = c->hello;
	if (proto_format(&msg, line, sizeof(line)) < 0)
		return fail_infra(c, "the agent's hello does not format again");
	line[strcspn(line, "\n")] = '\0';
	channel_close(&c->ch);
	rc = saved_commit(&c->save, c->dom, c->overlay, line, err);
	c->dom = NULL;
	if (rc < 0)
		return fail_infra(c, "%s", err);
	phases_mark(&c->ph, PH_SAVE);
	return 0;
}

/* The saved guest restored on a fresh overlay of its disk, its channel attached. */
static int restore(struct run_ctx *c, struct vm_config *cfg)
{
	char err[ERR_MAX];

	cfg->backing = c->save.disk;
	cfg->backing_fmt = "qcow2";
	c->t_boot = now_ms();
	if (vm_restore(c->r->vm, cfg, c->save.state, &c->dom, err) < 0) {
		saved_drop(&c->save);   /* the retry makes it anew */
		return fail_infra(c, "restoring saved guest %.16s: %s", c->save.key, err);
	}
	if (attach_channel(c) < 0)
		return -1;
	c->out->agent_ready_ms = now_ms() - c->t_boot;
	phases_mark(&c->ph, PH_RESTORE);
	return 0;
}

/* saved_users' live(): the run's store says whether a matrix has runs to do (an error: yes). */
static int matrix_live(void *arg, int64_t mid)
{
	char err[ERR_MAX];

	return store_matrix_pending(arg, mid, err) != 0;
}

/*
 * The saves of the run's host over its cap pruned, those the queue still
 * needs passed by; the run's matrix named among its save's users.
 */
static void prune_saves(struct run_ctx *c, const char *cache)
{
	const struct saved_users u = { matrix_live, c->r->store };
	char err[ERR_MAX];
	int64_t mid;

	if (store_run_matrix(c->r->store, c->id, &mid, err) == 0 &&
	    saved_use(&c->save, mid, err) < 0)
		fprintf(stderr, "harness: run %lld: %s\n", (long long)c->id, err);
	saved_prune(cache, c->r->vm, c->r->host, c->r->conf->saves_max_mib << 20, &u);
}

/*
 * A run's start "restore": the arm's saved guest (made by this run if
 * there is none yet: start "save") restored; its hello is the one its
 * agent sent as it booted. On another host the save is made and kept
 * there, in its pool.
 */
static int start_restore(struct run_ctx *c, struct vm_config *cfg, const struct vm_host_facts *f)
{
	struct proto_msg msg;
	char cache[PATH_MAX], err[ERR_MAX];
	int rc, made = 0;

	if (pathf(cache, err, "%s/cache", c->r->conf->results) < 0 ||
	    saved_open(cache, c->r->vm, c->r->host, cfg, f, c->r->slot,
		       c->block % (unsigned)c->r->conf->saves, &c->save, err) < 0)
		return fail_infra(c, "%s", err);
	cfg->name = c->save.name;
	cfg->uuid = c->save.uuid;
	if (!c->save.ready) {
		made = 1;
		cfg->vol = c->save.vol;     /* another host: its overlay becomes the save's disk */
		rc = make_save(c, cfg);
		cfg->vol = c->name;
		if (rc)
			return rc;
	}
	prune_saves(c, cache);
	saved_share(&c->save);
	if (store_run_start(c->r->store, c->id, made ? "save" : "restore", c->save.key,
			    made ? (int64_t)saved_bytes(&c->save) : -1,
			    c->dberr) < 0)
		return -2;
	if ((rc = restore(c, cfg)))
		return rc;
	if (made)
		return 0;
	if (saved_hello(&c->save, &msg, err) < 0)
		return fail_infra(c, "%s", err);
	return take_hello(c, &msg.u.hello);
}

/* The run's guest, booted or restored as its matrix says, ready for its job. */
static int start_guest(struct run_ctx *c)
{
	struct vm_config cfg;
	struct vm_host_facts f;

	run_config(c, &cfg);
	if (store_run_booting(c->r->store, c->id, cfg.accel, c->r->host, c->cell->arch,
			      c->console, c->dberr) < 0 || record_machine(c, &cfg, &f) < 0)
		return -2;
	if (strcmp(c->m->start, "restore"))
		return start_boot(c, &cfg);
	return start_restore(c, &cfg, &f);
}

/*
 * 1 if lru_gen read back as the arm asked: anything for no ask, 0x0000 for
 * "n", any other 0x value for on.
 */
static int lru_gen_matches(const char *want, const char *got)
{
	if (!want[0])
		return 1;
	if (!strcmp(want, "n"))
		return !strcmp(got, "0x0000");
	return !strncmp(got, "0x", 2) && strcmp(got, "0x0000");
}

/* A trace the job asked for says on or off (why); one it did not ask for says nothing. */
static int check_trace_setup(struct run_ctx *c, const struct proto_setup *st)
{
	unsigned files;
	int all;
	int asked = proto_job_trace(&c->cell->job, &files, &all) != 0;

	if (!asked != !st->trace[0] ||
	    (asked && strncmp(st->trace, "on: ", 4) && strncmp(st->trace, "off: ", 5)))
		return fail(c, "guest trace status '%s' for a job that %s", st->trace,
			    asked ? "traces" : "does not trace");
	c->tracing = !strncmp(st->trace, "on: ", 4);
	if (!c->tracing && asked)
		fprintf(stderr, "harness: run %lld: trace %s\n", (long long)c->id, st->trace);
	return 0;
}

/*
 * The guest's multi-size THP read-back: a list as common/mthp.h spells it,
 * every size the arm wrote with the policy it wrote.
 */
static int check_mthp(struct run_ctx *c, const char *read)
{
	struct mthp_list want, got;
	char err[ERR_MAX];
	unsigned i;

	if (mthp_list_parse(read, &got, err, sizeof(err)) < 0)
		return fail(c, "guest's mthp read-back: %s", err);
	if (mthp_list_parse(c->arm->mthp, &want, err, sizeof(err)) < 0)
		return fail_infra(c, "arm '%s': mthp: %s", c->arm->name, err);
	for (i = 0; i < want.n; i++)
		if (mthp_list_find(&got, want.k[i].kib) != (int)want.k[i].policy)
			return fail(c, "wrote mthp '%s' but the guest reads back '%s'",
				    c->arm->mthp, read);
	return 0;
}

/* The guest must have found every declared file, at its declared size. */
static int check_setup(struct run_ctx *c, const struct proto_setup *st)
{
	const struct proto_job *job = &c->cell->job;
	unsigned i;

	if (st->file_pages.n != job->nfiles)
		return fail(c, "guest reports %llu files, the job declares %u",
			    (unsigned long long)st->file_pages.n, job->nfiles);
	for (i = 0; i < job->nfiles; i++)
		if (st->file_pages.v[i] != job->files[i].mib * 256)
			return fail(c, "guest reports %llu pages for '%s', expected %llu",
				    (unsigned long long)st->file_pages.v[i], job->files[i].name,
				    (unsigned long long)(job->files[i].mib * 256));
	if (!lru_gen_matches(c->arm->lru_gen, st->lru_gen))
		return fail(c, "wrote lru_gen '%s' but the guest reads back '%s'",
			    c->arm->lru_gen, st->lru_gen);
	if ((c->arm->thp_enabled[0] && strcmp(c->arm->thp_enabled, st->thp_enabled)) ||
	    (c->arm->thp_defrag[0] && strcmp(c->arm->thp_defrag, st->thp_defrag)))
		return fail(c, "wrote thp enabled '%s' defrag '%s' but the guest reads back '%s' '%s'",
			    c->arm->thp_enabled, c->arm->thp_defrag, st->thp_enabled,
			    st->thp_defrag);
	if (check_mthp(c, st->mthp) < 0)
		return -1;
	if ((job->swap.kind != SWAP_NONE) != !!st->swap[0] ||
	    (st->swap[0] && strncmp(st->swap, proto_swap_kind_names[job->swap.kind],
				    strlen(proto_swap_kind_names[job->swap.kind]))))
		return fail(c, "the job asks swap %s but the guest reports '%s'",
			    proto_swap_kind_names[job->swap.kind], st->swap);
	if (job->swappiness != PROTO_SWAPPINESS_KERNEL && job->swappiness != st->swappiness)
		return fail(c, "wrote vm.swappiness %llu but the guest reads back %llu",
			    (unsigned long long)job->swappiness, (unsigned long long)st->swappiness);
	if (st->file_ino.n != job->nfiles)
		return fail(c, "guest reports %llu inodes for %u files",
			    (unsigned long long)st->file_ino.n, job->nfiles);
	if (strncmp(st->stalls, "on: ", 4) && strncmp(st->stalls, "off: ", 5))
		return fail(c, "guest stall tracing status '%s', not 'on: ...' or 'off: ...'",
			    st->stalls);
	return check_trace_setup(c, st);
}

/*
 * The job sent with fresh entropy and the host's clock, then its setup
 * awaited, stored and checked.
 */
static int send_job(struct run_ctx *c)
{
	struct proto_msg msg = { .type = PROTO_JOB };
	unsigned char seed[PROTO_SEED_HEX / 2];
	char err[ERR_MAX];

	msg.u.job = c->cell->job;
	msg.u.job.run = (uint64_t)c->id;
	if (fmtbuf(msg.u.job.lru_gen, sizeof(msg.u.job.lru_gen), "%s", c->arm->lru_gen) < 0 ||
	    fmtbuf(msg.u.job.thp_enabled, sizeof(msg.u.job.thp_enabled), "%s",
		   c->arm->thp_enabled) < 0 ||
	    fmtbuf(msg.u.job.thp_defrag, sizeof(msg.u.job.thp_defrag), "%s",
		   c->arm->thp_defrag) < 0 ||
	    fmtbuf(msg.u.job.mthp, sizeof(msg.u.job.mthp), "%s", c->arm->mthp) < 0)
		return fail_infra(c, "arm '%s': lru_gen, thp_* or mthp over the job's fields",
				  c->arm->name);
	/* fresh entropy for every guest, booted or restored (a restored one's
	 * CRNG is its save's) */
	if (getrandom(seed, sizeof(seed), 0) != (ssize_t)sizeof(seed))
		return fail_infra(c, "getrandom: %s", strerror(errno));
	proto_hex(seed, sizeof(seed), msg.u.job.seed);
	msg.u.job.host_ms = (uint64_t)phases_now();
	if (channel_send(&c->ch, &msg, err) < 0)
		return fail(c, "%s", err);
	if (expect(c, PROTO_SETUP, &msg, now_ms() + 120000, "setup") < 0)
		return -1;
	phases_mark(&c->ph, PH_SETUP);
	if (store_run_setup(c->r->store, c->id, &msg.u.setup, c->dberr) < 0)
		return -2;
	return check_setup(c, &msg.u.setup);
}

/* Residency of every file: as many values as files, none beyond the file. */
static int check_resident(struct run_ctx *c, const struct proto_u64s *r, const char *what)
{
	const struct proto_job *job = &c->cell->job;
	unsigned i;

	if (r->n != job->nfiles)
		return fail(c, "guest %s: %llu residency values for %u files", what,
			    (unsigned long long)r->n, job->nfiles);
	for (i = 0; i < job->nfiles; i++)
		if (r->v[i] > job->files[i].mib * 256)
			return fail(c, "guest %s: %llu resident pages of the %llu-page file '%s'",
				    what, (unsigned long long)r->v[i],
				    (unsigned long long)(job->files[i].mib * 256), job->files[i].name);
	return 0;
}

/*
 * Every node the last sample announced must have come before the next
 * sample, the youngest of their generations the sample's lru_gen_max_seq.
 */
static int check_lru_done(struct run_ctx *c)
{
	if (c->lru.seen != c->lru.expect)
		return fail(c, "guest sent the generations of %llu of the %llu nodes of "
			    "interval %llu", (unsigned long long)c->lru.seen,
			    (unsigned long long)c->lru.expect, (unsigned long long)(c->next_seq - 1));
	if (c->lru.expect && c->lru.youngest != c->lru.window_max)
		return fail(c, "guest interval %llu: youngest generation %llu, its sample says %llu",
			    (unsigned long long)(c->next_seq - 1), (unsigned long long)c->lru.youngest,
			    (unsigned long long)c->lru.window_max);
	return 0;
}

/* The guest is untrusted: a sample must follow the last, stay in range and in budget. */
static int check_sample(struct run_ctx *c, const struct proto_sample *s)
{
	char why[ERR_MAX];

	if (check_lru_done(c) < 0)
		return -1;
	if (s->lru_nodes && !strcmp(c->arm->lru_gen, "n"))
		return fail(c, "guest sample %llu announces generations of %llu nodes with "
			    "lru_gen off", (unsigned long long)s->seq,
			    (unsigned long long)s->lru_nodes);
	if (s->lru_nodes && s->lru_refused)
		return fail(c, "guest sample %llu announces generations of a refused lru_gen",
			    (unsigned long long)s->seq);
	if (s->gen_valid != (s->lru_nodes > 0))
		return fail(c, "guest sample %llu: lru_gen window %s, %llu nodes of generations",
			    (unsigned long long)s->seq, s->gen_valid ? "given" : "absent",
			    (unsigned long long)s->lru_nodes);
	if (s->seq != c->next_seq)
		return fail(c, "guest sample %llu out of order (expected %llu)",
			    (unsigned long long)s->seq, (unsigned long long)c->next_seq);
	if (s->t_ms <= c->last_t && s->seq > 0)
		return fail(c, "guest sample %llu goes back in time", (unsigned long long)s->seq);
	if (budget_sample(&c->budget, s->seq, why) < 0)
		return over_budget(c, why);
	return check_resident(c, &s->resident, "sample");
}

/* Each generation's pages within the memcg's limit, all of the interval's within the guest. */
static int check_lru_pages(struct run_ctx *c, const struct proto_lru *l)
{
	uint64_t limit = c->cell->job.memcg_mib * (UINT64_C(1) << 20) / c->page_size;
	uint64_t guest = c->m->memory_mib * (UINT64_C(1) << 20) / c->page_size;
	uint64_t g;

	for (g = 0; g < l->gen.n; g++) {
		if (l->anon.v[g] > limit || l->file.v[g] > limit)
			return fail(c, "guest node %llu generation %llu: %llu anon and %llu file "
				    "pages, the memcg holds at most %llu",
				    (unsigned long long)l->nid, (unsigned long long)l->gen.v[g],
				    (unsigned long long)l->anon.v[g],
				    (unsigned long long)l->file.v[g], (unsigned long long)limit);
		c->lru.pages += l->anon.v[g] + l->file.v[g];
	}
	if (c->lru.pages > guest)
		return fail(c, "guest interval %llu: %llu pages in generations, the guest has %llu",
			    (unsigned long long)l->seq, (unsigned long long)c->lru.pages,
			    (unsigned long long)guest);
	return 0;
}

/*
 * One node's generations (their shape proto_parse checked): in the turn of
 * the sample that announced them, nodes in nid order, pages in bounds, and a
 * node's youngest generation never older than in an earlier interval.
 */
static int check_lru(struct run_ctx *c, const struct proto_lru *l)
{
	struct lru_turn *t = &c->lru;
	uint64_t youngest = l->gen.v[l->gen.n - 1];

	if (c->next_seq == 0 || l->seq != c->next_seq - 1 || t->seen >= t->expect ||
	    l->node != t->seen)
		return fail(c, "guest generations of interval %llu node %llu arrived out of turn",
			    (unsigned long long)l->seq, (unsigned long long)l->node);
	if ((int64_t)l->nid <= t->last_nid)
		return fail(c, "guest interval %llu: node %llu after node %lld",
			    (unsigned long long)l->seq, (unsigned long long)l->nid,
			    (long long)t->last_nid);
	if (check_lru_pages(c, l) < 0)
		return -1;
	if (t->nid[l->node] == (int64_t)l->nid && youngest < t->max_seq[l->node])
		return fail(c, "guest node %llu: youngest generation %llu after %llu",
			    (unsigned long long)l->nid, (unsigned long long)youngest,
			    (unsigned long long)t->max_seq[l->node]);
	t->nid[l->node] = (int64_t)l->nid;
	t->max_seq[l->node] = youngest;
	t->last_nid = (int64_t)l->nid;
	t->youngest = youngest > t->youngest ? youngest : t->youngest;
	t->seen++;
	return 0;
}

/* A new interval's turn: the nodes its sample announced. */
static void lru_turn_start(struct lru_turn *t, const struct proto_sample *s)
{
	t->expect = s->lru_nodes;
	t->window_max = s->max_seq;
	t->youngest = 0;
	t->seen = 0;
	t->pages = 0;
	t->last_nid = -1;
}

/*
 * A stream's interval comes after its sample, in the sample's turn; a fio
 * stream's may come later (once fio's own documents reach the interval's
 * end), in order, or never (the guest gave it up: missing, not 0). Each once.
 */
static int check_stream(struct run_ctx *c, const struct proto_stream_sample *s)
{
	int late_ok;

	if (s->stream >= c->cell->job.nstreams)
		return fail(c, "guest stream sample for stream %llu is unexpected",
			    (unsigned long long)s->stream);
	late_ok = proto_kinds[c->cell->job.streams[s->stream].kind]->flags & PK_STATUS;
	if (s->seq >= c->next_seq || s->seq < c->stream_next[s->stream] ||
	    (!late_ok && s->seq + 1 != c->next_seq))
		return fail(c, "guest stream sample for interval %llu arrived out of turn",
			    (unsigned long long)s->seq);
	c->stream_next[s->stream] = s->seq + 1;
	return 0;
}

/*
 * An operation sample: of an operation the stream reports, once per interval
 * (in the interval's turn), and once as the total after the last interval.
 */
static int check_op(struct run_ctx *c, const struct proto_op_sample *o)
{
	const struct proto_job *job = &c->cell->job;
	uint32_t *seen;
	unsigned k;

	for (k = 0; k < OP_COUNT && strcmp(proto_op_names[k], o->op); k++)
		;
	if (o->stream >= job->nstreams || k == OP_COUNT ||
	    !(proto_stream_ops(&job->streams[o->stream]) & (1u << k)))
		return fail(c, "guest operation sample '%s' of stream %llu is unexpected", o->op,
			    (unsigned long long)o->stream);
	if (!o->total && (c->next_seq == 0 || o->seq != c->next_seq - 1))
		return fail(c, "guest operation sample for interval %llu arrived out of turn",
			    (unsigned long long)o->seq);
	if (o->total && o->seq > c->next_seq)
		return fail(c, "guest operation total over %llu intervals of %llu",
			    (unsigned long long)o->seq, (unsigned long long)c->next_seq);
	seen = o->total ? &c->op_total_seen[o->stream] : &c->op_seen[o->stream];
	if (*seen & (1u << k))
		return fail(c, "guest operation sample '%s' of stream %llu came twice", o->op,
			    (unsigned long long)o->stream);
	*seen |= 1u << k;
	return 0;
}

/*
 * A guest event checked: a known kind, a declared stream within its budget
 * of events, residency of the declared files.
 */
static int check_event(struct run_ctx *c, const struct proto_event *e)
{
	char why[ERR_MAX];
	unsigned k;

	for (k = 0; k < EV_COUNT && strcmp(proto_event_names[k], e->kind); k++)
		;
	if (k == EV_COUNT)
		return fail(c, "guest event of unknown kind '%s'", e->kind);
	if (e->stream >= c->cell->job.nstreams)
		return fail(c, "guest event for stream %llu of %u", (unsigned long long)e->stream,
			    c->cell->job.nstreams);
	if (budget_event(&c->budget, e->stream, why) < 0)
		return over_budget(c, why);
	return check_resident(c, &e->resident, "event");
}

/* 1 if the run's guest is on this machine; a test's channel (no connection) is not. */
static int guest_local(const struct run_ctx *c)
{
	return c->r->vm && vm_is_local(c->r->vm);
}

static int stopped(const struct run_ctx *c)
{
	return c->r->should_stop && c->r->should_stop(c->r->stop_arg);
}

/*
 * A remote guest's silence may be its host's: ask the host (an RPC, which
 * libvirt's keepalive ends within 15 s if nothing answers there).
 */
static int host_gone(struct run_ctx *c)
{
	if (!c->dom)
		return 0;       /* a test's channel (runner_run_channel) */
	if (vm_domain_host_lost(c->dom))
		return 1;
	vm_running(c->dom);
	return vm_domain_host_lost(c->dom);
}

/*
 * Did the host cause the guest's silence since the last pressure point (its
 * cores taken: pressure_starved)? 1 with why; 0 when not, or not known (a
 * guest of another host, no point yet, /proc unreadable).
 */
static int host_starved(struct run_ctx *c, char *why, size_t len)
{
	struct pressure_limits lim;
	struct pressure_point now;
	struct pressure_share sh;
	char err[ERR_MAX];

	if (c->press_off || !c->npress || !guest_local(c) ||
	    pressure_read("/proc", c->dom ? vm_domain_pid(c->dom) : 0, &now, err) < 0)
		return 0;
	pressure_limits_of(c->r->conf, &lim);
	if (!pressure_starved(&c->press[c->npress - 1], &now, &lim, &sh))
		return 0;
	fmtcut(why, len, "%s, over the last %.1f s", sh.why, sh.seconds);
	return 1;
}

/* The run's host went away before the guest's what: the host's, retried elsewhere. */
static int fail_host_lost(struct run_ctx *c, const char *what)
{
	return fail_infra(c, "host %s lost before the guest's %s: its libvirt connection closed",
			  c->r->host, what);
}

/* QEMU went away under the guest: the host's, with QEMU's last word when it left one. */
static int emulator_died(struct run_ctx *c, const char *what)
{
	char said[240];

	if (vm_emulator_said(c->dom, said, sizeof(said)))
		return fail_infra(c, "QEMU died on the host before the guest's %s: %s", what,
				  said);
	return fail_infra(c, "QEMU died on the host before the guest's %s (killed?)", what);
}

/*
 * The console's file within its budget: its guest's kernel writes it
 * through QEMU, and could fill the host's disk. 0, or -1 with why (a
 * console not here, another host's, is not judged).
 */
static int console_budget(const struct run_ctx *c, char *why)
{
	struct stat st;

	if (!c->console[0] || stat(c->console, &st) < 0)
		return 0;
	return budget_console(&c->budget, (uint64_t)st.st_size, why);
}

/*
 * Wait for the next message of any type; ends the run on timeout, garbage,
 * a budget overrun (the console's among them, looked at every message and
 * every second) or a stop request (looked at every second).
 */
static int next_msg(struct run_ctx *c, struct proto_msg *msg, int64_t deadline, const char *what)
{
	char err[ERR_MAX], why[200];
	int64_t slice;

	for (;;) {
		slice = now_ms() + 1000 < deadline ? now_ms() + 1000 : deadline;
		switch (channel_recv(&c->ch, msg, slice, err)) {
		case CH_MSG:
			if (budget_bytes(&c->budget, c->ch.taken, err) < 0 ||
			    console_budget(c, err) < 0)
				return over_budget(c, err);
			if (msg->type == PROTO_ERROR)
				return fail(c, "guest: %s", msg->u.error);
			return 0;
		case CH_TIMEOUT:
			if (console_budget(c, err) < 0)
				return over_budget(c, err);
			if (stopped(c))
				return fail_as(c, "interrupted", 0, "stopped while waiting for its %s",
					       what);
			/* another host's loss is looked for every second: a long silence
			 * must not hide it (one call of its connection) */
			if ((now_ms() >= deadline || !guest_local(c)) && host_gone(c))
				return fail_host_lost(c, what);
			if (now_ms() < deadline)
				continue;
			if (host_starved(c, why, sizeof(why)))
				return fail_infra(c, "no %s from the guest in time while the host "
						  "was busy (%s): the host's, not the kernel's", what,
						  why);
			if (!strcmp(what, "hello"))
				return no_hello(c, 0);
			return fail_as(c, "timeout", 0, "timeout: no %s from the guest in time "
				       "(see %s)", what, c->console);
		case CH_EOF:
			if (c->dom && vm_domain_host_lost(c->dom))
				return fail_host_lost(c, what);
			if (c->dom && vm_stopped(c->dom, 3000) == VM_STOP_EMULATOR_DIED)
				return emulator_died(c, what);
			if (!strcmp(what, "hello"))
				return no_hello(c, 1);
			return fail(c, "guest went away before its %s (see %s)", what, c->console);
		case CH_BAD:
			return fail(c, "guest sent a bad message: %s", err);
		}
		return fail(c, "channel: unknown status");
	}
}

/*
 * Trace events only when on, after their interval's sample, within the
 * interval's budget; the counts never go back.
 */
static int check_trace(struct run_ctx *c, const struct proto_trace *t)
{
	char why[ERR_MAX];

	if (!c->tracing)
		return fail(c, "guest sent trace events with its trace off");
	if (!c->next_seq || t->seq != c->next_seq - 1)
		return fail(c, "guest trace events for interval %llu after the sample of %llu",
			    (unsigned long long)t->seq, (unsigned long long)c->next_seq - 1);
	if (t->lost < c->trace_lost || t->refused < c->trace_refused)
		return fail(c, "guest interval %llu: trace counts went back", (unsigned long long)t->seq);
	if (budget_trace(&c->budget, t->seq, t->kind.n, why) < 0)
		return over_budget(c, why);
	c->trace_lost = t->lost;
	c->trace_refused = t->refused;
	return 0;
}

/*
 * A source's counters: its start's values once, after the first sample;
 * changes for the interval just sampled, and its end's values once, never
 * before its start nor after its end; keys within the source's budget,
 * each one's start plus changes representable.
 */
static int check_counters(struct run_ctx *c, const struct proto_counters *k)
{
	char why[ERR_MAX];
	unsigned src, bit;

	for (src = 0; src < CS_COUNT && strcmp(proto_counter_src_names[src], k->src); src++)
		;
	bit = 1u << src;
	if (k->at == CA_START) {
		if (c->next_seq != 1 || ((c->counters_changed | c->counters_ended) & bit))
			return fail(c, "guest sent %s's starting counters after interval %llu",
				    k->src, (unsigned long long)c->next_seq - 1);
		c->counters_started |= bit;
		return budget_counters(&c->budget, k, why) < 0 ? over_budget(c, why) : 0;
	}
	/* an end's later messages follow its first; no change comes after it */
	if (!c->next_seq || k->seq != c->next_seq - 1 || !(c->counters_started & bit) ||
	    (k->at == CA_CHANGE && (c->counters_ended & bit)))
		return fail(c, "guest %s counters for interval %llu after the sample of %llu%s",
			    k->src, (unsigned long long)k->seq, (unsigned long long)c->next_seq - 1,
			    !(c->counters_started & bit) ? ", before their start" :
			    c->counters_ended & bit ? ", after their end" : "");
	if (k->at == CA_END)
		c->counters_ended |= bit;
	else
		c->counters_changed |= bit;
	return budget_counters(&c->budget, k, why) < 0 ? over_budget(c, why) : 0;
}

/*
 * The host's pressure now, kept in c->press (ramp: before the measured
 * window) and stored beside interval seq (-1: as the job was sent). An
 * unreadable pressure file is said once and the run is then not judged.
 */
static int host_pressure(struct run_ctx *c, int64_t seq, int ramp)
{
	struct pressure_point p, *grown = c->press;
	struct store_pressure row;
	char err[ERR_MAX] = "out of memory";
	size_t cap = c->cap_press;

	/* /proc/pressure is this machine's: another host's guest is not judged by it */
	if (c->press_off || !guest_local(c))
		return 0;
	if (c->npress == cap)
		grown = realloc(c->press, (cap = cap * 2 + 16) * sizeof(*grown));
	if (grown) {
		c->press = grown;
		c->cap_press = cap;
	}
	if (!grown || pressure_read("/proc", c->dom ? vm_domain_pid(c->dom) : 0, &p, err) < 0) {
		fprintf(stderr, "harness: run %lld: host pressure not judged: %s\n",
			(long long)c->id, err);
		c->press_off = 1;
		return 0;
	}
	p.ramp = ramp;
	c->press[c->npress++] = p;
	row = (struct store_pressure){ seq, p.ms, p.psi ? (double)p.cpu_some : NAN,
		p.psi && p.has_cpu_full ? (double)p.cpu_full : NAN, p.psi ? (double)p.io_some : NAN,
		p.psi ? (double)p.io_full : NAN, p.load };
	return store_host_pressure(c->r->store, c->id, &row, c->dberr);
}

/* The measured window's contention, judged from c->press and stored. */
static int judge_pressure(struct run_ctx *c)
{
	struct pressure_limits lim;
	struct pressure_share sh;

	pressure_limits_of(c->r->conf, &lim);
	if (c->press_off || pressure_window(c->press, c->npress, &lim, &sh) < 0)
		return 0;
	c->out->contended = sh.contended;
	fmtcut(c->out->contended_why, sizeof(c->out->contended_why), "%s", sh.why);
	return store_run_contended(c->r->store, c->id, sh.cpu_pct, sh.io_pct, sh.load_pct,
				   sh.contended, sh.contended ? sh.why : NULL, c->dberr);
}

/* Store one message of the workload phase; 1 when it was the summary. */
static int handle(struct run_ctx *c, const struct proto_msg *msg)
{
	int rc;

	switch (msg->type) {
	case PROTO_SAMPLE:
		if (check_sample(c, &msg->u.sample) < 0)
			return -1;
		rc = store_sample(c->r->store, c->id, &msg->u.sample, c->dberr);
		if (rc == 0)
			rc = host_pressure(c, (int64_t)msg->u.sample.seq, (int)msg->u.sample.ramp);
		c->next_seq++;
		c->last_t = msg->u.sample.t_ms;
		memset(c->op_seen, 0, sizeof(c->op_seen));
		lru_turn_start(&c->lru, &msg->u.sample);
		return rc < 0 ? -2 : 0;
	case PROTO_LRU:
		if (check_lru(c, &msg->u.lru) < 0)
			return -1;
		return store_lru(c->r->store, c->id, &msg->u.lru, c->dberr) < 0 ? -2 : 0;
	case PROTO_TRACE:
		if (check_trace(c, &msg->u.trace) < 0)
			return -1;
		return store_trace(c->r->store, c->id, &c->trace_idx, &msg->u.trace, c->dberr) < 0 ?
			-2 : 0;
	case PROTO_COUNTERS:
		if (check_counters(c, &msg->u.counters) < 0)
			return -1;
		switch (store_counters(c->r->store, c->id, &msg->u.counters, c->dberr)) {
		case 0:
			return 0;
		case 1:      /* a key it had sent already: the guest's fault, not the database's */
			return fail(c, "guest sent %s", c->dberr);
		default:
			return -2;
		}
	case PROTO_STREAM:
		if (check_stream(c, &msg->u.stream) < 0)
			return -1;
		c->ops += msg->u.stream.read_ops + msg->u.stream.write_ops;
		return store_stream_sample(c->r->store, c->id, &msg->u.stream, c->dberr) < 0 ? -2 : 0;
	case PROTO_EVENT:
		if (check_event(c, &msg->u.event) < 0)
			return -1;
		return store_event(c->r->store, c->id, c->events++, &msg->u.event, c->dberr) < 0 ?
			-2 : 0;
	case PROTO_OP:
		if (check_op(c, &msg->u.op) < 0)
			return -1;
		return store_op_sample(c->r->store, c->id, &msg->u.op, c->dberr) < 0 ? -2 : 0;
	case PROTO_SUMMARY:
		return check_lru_done(c) < 0 ? -1 : 1;
	default:
		return fail(c, "guest sent message type %d during the workload", msg->type);
	}
}

/*
 * The workload: every message handled until the summary, the deadline
 * (duration and slack) or watchdog_intervals (at least watchdog_min_s) of
 * silence; then the summary's
 * count checked, the host's pressure judged, the run's ops/s set.
 */
static int workload_loop(struct run_ctx *c)
{
	const struct proto_job *w = &c->cell->job;
	int64_t end = now_ms() + (int64_t)(w->duration_s + c->r->conf->slack_s) * 1000;
	int64_t silence = (int64_t)w->interval_ms * (int64_t)c->r->conf->watchdog_intervals,
		least = (int64_t)c->r->conf->watchdog_min_s * 1000;
	struct proto_msg msg;
	int rc;

	if (silence < least)
		silence = least;
	if (host_pressure(c, -1, 1) < 0)
		return -2;
	for (;;) {
		if (next_msg(c, &msg, now_ms() + silence < end ? now_ms() + silence : end,
			     now_ms() + silence < end ? "next sample" : "summary before the deadline")
		    < 0)
			return -1;
		rc = handle(c, &msg);
		if (rc < 0)
			return rc;
		if (rc == 1)
			break;
		if (stopped(c))
			return fail_as(c, "interrupted", 0, "stopped during the workload");
	}
	phases_mark(&c->ph, PH_WORKLOAD);
	c->summary = msg.u.summary;
	if (c->summary.samples != c->next_seq)
		return fail(c, "guest summary counts %llu samples, %llu arrived",
			    (unsigned long long)c->summary.samples, (unsigned long long)c->next_seq);
	c->out->samples = c->next_seq;
	if (judge_pressure(c) < 0)
		return -2;
	c->out->ops_per_s = c->summary.duration_ms ?
		(double)c->ops * 1000.0 / (double)c->summary.duration_ms : 0;
	return 0;
}

/* The run's guest and channel gone, its overlay and socket removed. */
static void teardown(struct run_ctx *c)
{
	channel_close(&c->ch);
	vm_destroy(c->dom);
	c->dom = NULL;
	saved_close(&c->save);
	unlink(c->overlay);
	unlink(c->sock);
}

/*
 * The status the run ends with: what the stages said, unless the console
 * shows the kernel crashed (a crash is a finding, whatever the agent managed).
 */
static void conclude(struct run_ctx *c, int rc)
{
	struct run_outcome *out = c->out;
	struct console_report rep;

	if (rc == 0)
		fmtcut(out->status, sizeof(out->status), "done");
	else if (strstr(out->reason, "guest: unsupported: ") == out->reason)
		fmtcut(out->status, sizeof(out->status), "unsupported");
	else if (strstr(out->reason, "guest: oom: ") == out->reason && !out->infra) {
		fmtcut(out->status, sizeof(out->status), "oom");   /* a finding, as a crash is */
		if (sscanf(out->reason, "guest: oom: the memcg's OOM killer killed %" SCNu64,
			   &out->oom_kills) != 1)
			out->oom_kills = 0;
	}
	console_scan(c->console, &rep);
	out->warnings = rep.warnings;
	if (rep.crashed) {
		fmtcut(out->crash, sizeof(out->crash), "%s", rep.first);
		fmtcut(out->status, sizeof(out->status), "crashed");
		fmtcut(out->reason, sizeof(out->reason), "kernel crashed: %.*s",
			 (int)strcspn(rep.first, "\n"), rep.first);
		out->infra = 0;
	}
	out->ok = !strcmp(out->status, "done");
}

int runner_check_images(const struct conf *conf, const struct matrix *m, char *err)
{
	char base[PATH_MAX];
	unsigned i;

	for (i = 0; i < m->n_archs; i++)
		if (image_base(conf->images, m->archs[i], base, err) < 0)
			return -1;
	return 0;
}

const char *runner_pick_accel(const struct conf *conf, struct vm_conn *vm,
			      const struct matrix *m, char *why, size_t len)
{
	int h = spec_arch_index(m, vm_conn_arch(vm));
	char cache[PATH_MAX];

	why[0] = '\0';
	if (strcmp(conf->accel, "auto"))
		return conf->accel;
	if (h < 0) {
		fmtcut(why, len, "no cell runs on the host's arch (%s)", vm_conn_arch(vm));
		return "tcg";
	}
	if (pathf(cache, why, "%s/cache", conf->results) < 0)
		return "tcg";
	return vm_conn_accel(vm, m->archs[h], m->arms[0].files[h].kernel, cache, why, len);
}

/* The host's 1-minute load average (/proc/loadavg), NAN if it cannot be read. */
static double host_load(void)
{
	char buf[64] = "";
	FILE *f = fopen("/proc/loadavg", "re");
	double load = NAN;

	if (f && fgets(buf, sizeof(buf), f) && sscanf(buf, "%lf", &load) != 1)
		load = NAN;
	if (f)
		fclose(f);
	return load;
}

/*
 * The quiet-host gate, after the run's files are ready and before its guest
 * boots (the wait counts in the prepare phase, and is stored alone). A gate
 * that cannot read the host's pressure is said and the run starts. Only for
 * guests on this machine: another host's pressure is not read here.
 */
static int gate(struct run_ctx *c)
{
	struct quiet_outcome q;
	char err[ERR_MAX];

	if (!vm_is_local(c->r->vm))
		return 0;
	if (quiet_gate(c->r->conf, c->id, stderr, &c->r->said_no_psi, c->r->should_stop,
		       c->r->stop_arg, &q, err) < 0) {
		fprintf(stderr, "harness: run %lld: quiet-host gate: %s; the run starts\n",
			(long long)c->id, err);
		return 0;
	}
	c->out->quiet_wait_ms = q.waited_ms;
	c->out->started_busy = q.busy;
	if (q.stopped)
		return fail_as(c, "interrupted", 0, "stopped while waiting for a quiet host");
	return store_run_quiet(c->r->store, c->id, q.waited_ms, q.busy, c->dberr) < 0 ? -2 : 0;
}

/*
 * c, whose run, matrix and outcome are set, started: nothing open yet, its
 * budgets from its job. 0, or -1 with err.
 */
static int ctx_start(struct run_ctx *c, char *err)
{
	unsigned files;
	int all;

	memset(c->out, 0, sizeof(*c->out));
	c->save.lock_fd = -1;
	memset(c->lru.nid, 0xff, sizeof(c->lru.nid));   /* -1: no node seen yet */
	channel_init(&c->ch);
	phases_mark(&c->ph, PH_PICKED);
	return budget_init(&c->budget, &c->cell->job, c->m->vcpus,
			   proto_job_trace(&c->cell->job, &files, &all) != 0, err);
}

/* The job sent to the guest that said hello, then its workload's messages taken. */
static int job_stages(struct run_ctx *c)
{
	int rc = send_job(c);

	return rc ? rc : workload_loop(c);
}

/*
 * The run's end after its stages said rc: its guest gone, its outcome
 * concluded and stored with the console's and the host's facts.
 */
static int finish(struct run_ctx *c, int rc, char *err)
{
	struct run_outcome *out = c->out;
	struct store *s = c->r->store;

	teardown(c);
	free(c->press);
	budget_release(&c->budget);
	phases_mark(&c->ph, PH_TEARDOWN);
	if (rc == -2)
		return errorf(err, "run %lld: cannot record it in the database: %s", (long long)c->id,
			      c->dberr);
	conclude(c, rc);
	if (store_run_console(s, c->id, out->crash[0] ? out->crash : NULL, out->warnings,
			      err) < 0 ||
	    (out->oom_kills && store_run_oom(s, c->id, (int64_t)out->oom_kills, err) < 0) ||
	    summary_finish_run(s, c->id, out->status, out->ok ? NULL : out->reason,
			     out->ok ? &c->summary : NULL, err) < 0)
		return -1;
	out->host_load = host_load();
	if (!isnan(out->host_load) && store_run_host_load(s, c->id, out->host_load, err) < 0)
		return -1;
	phases_mark(&c->ph, PH_STORE);
	return store_run_phases(s, c->id, phase_names, c->ph.at, PH_COUNT, err);
}

int runner_run(struct runner *r, const struct matrix *m, const struct run_ref *ref,
	       struct run_outcome *out, char *err)
{
	struct run_ctx c = {
		.r = r, .m = m, .arm = &m->arms[ref->arm], .cell = &m->cells[ref->cell],
		.id = ref->id, .block = ref->block, .out = out,
	};
	int rc;

	if (ctx_start(&c, err) < 0)
		return -1;
	rc = prepare(&c);
	if (rc == 0)
		rc = gate(&c);
	if (rc == 0) {
		phases_mark(&c.ph, PH_PREPARE);
		rc = start_guest(&c);
	}
	if (rc == 0)
		rc = job_stages(&c);
	return finish(&c, rc, err);
}

int runner_run_channel(struct runner *r, const struct matrix *m, const struct run_ref *ref,
		       int fd, struct run_outcome *out, char *err)
{
	struct run_ctx c = {
		.r = r, .m = m, .arm = &m->arms[ref->arm], .cell = &m->cells[ref->cell],
		.id = ref->id, .block = ref->block, .out = out,
	};
	char why[ERR_MAX];
	int rc;

	if (ctx_start(&c, err) < 0) {
		close(fd);
		return -1;
	}
	c.t_boot = now_ms();
	if (pathf(c.dir, why, "%s/runs/%lld", r->conf->results, (long long)c.id) < 0 ||
	    pathf(c.console, why, "%s/console.log", c.dir) < 0) {
		close(fd);
		rc = fail_infra(&c, "%s", why);
	} else if (channel_attach(&c.ch, fd, why) < 0) {
		close(fd);
		rc = fail_infra(&c, "%s", why);
	} else if (store_run_start(r->store, c.id, "boot", NULL, -1, c.dberr) < 0) {
		rc = -2;
	} else {
		rc = await_hello(&c);
	}
	if (rc == 0)
		rc = job_stages(&c);
	return finish(&c, rc, err);
}

int runner_retry(struct runner *r, struct run_ref *ref, const struct run_outcome *out,
		 uint64_t *tries, char *err)
{
	if (!out->infra || (*tries)++ >= r->conf->retries)
		return 0;
	if (store_requeue(r->store, ref->id, "failed", out->reason, 1, &ref->id, err) < 0)
		return -1;
	return 1;
}
