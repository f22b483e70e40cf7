/* bridge.h -- a libvirt stream (a remote guest's channel) as a socket: what
 * the stream says is written to one end, what is written there is sent. */
#ifndef BRIDGE_H
#define BRIDGE_H

#include <libvirt/libvirt.h>

struct vm_bridge;

/*
 * Bridge st (non-blocking, opened on a domain's channel; the bridge owns it
 * from here) to a socket pair: *fd is the caller's end, a stream socket whose
 * EOF follows the stream's. A thread moves the bytes both ways.
 */
int vm_bridge_open(virStreamPtr st, struct vm_bridge **ret, int *fd, char *err);

/* Stop the thread (the caller's end may be open or closed), end and free the stream. */
void vm_bridge_close(struct vm_bridge *b);

#endif
