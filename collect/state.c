/*
 * state.c — the one process-wide record of libzt-prof.so (state.h).
 */
#include "state.h"

#include <unistd.h>

struct zt_state zt_state = {
	.dump.fd = -1, .maps.fd = -1, .dir.fd = -1, .status.fd = -1, .maps_now.fd = -1,
	.control_fd.fd = -1,
};

int zt_state_owner(void)
{
	return zt_state.dump.fd >= 0 && getpid() == zt_state.pid;
}

pid_t zt_state_pid_cache;

int zt_state_owner_cached(void)
{
	return zt_state.dump.fd >= 0 && zt_state_pid_cache == zt_state.pid;
}
