/* The host's own allocator (host_alloc.c), shared by the host programs. */
#ifndef HOST_ALLOC_H
#define HOST_ALLOC_H

#include <stddef.h>
#include <stdint.h>

#define HOST_EXPORT(name) __attribute__((export_name(name)))

void* host_malloc(size_t bytes);
void host_free(void* p);

#endif
