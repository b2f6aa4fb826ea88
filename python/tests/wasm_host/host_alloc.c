/* A host's own malloc for a WebAssembly instance that links Scaly archives:
 * a bump allocator over __heap_base with a first-fit free list, growing the
 * memory itself. Blocks are 16-byte aligned (the typed structs ask for 16).
 * No libc allocator is linked: the test checks the module has no dlmalloc. */
#include "host_alloc.h"

extern unsigned char __heap_base;

typedef struct block {
  uint32_t size; /* payload bytes */
  struct block* next;
} block;

#define HEADER 16u

static uintptr_t top; /* the first byte never handed out */
static block* free_list;
static uint32_t stats[4]; /* mallocs, frees, live bytes, top */

static int reserve(uint64_t end) {
  uint64_t have = (uint64_t)__builtin_wasm_memory_size(0) * 65536u;
  if (end <= have)
    return 1;
  uint64_t pages = (end - have + 65535u) / 65536u;
  return __builtin_wasm_memory_grow(0, (size_t)pages) != (size_t)-1;
}

HOST_EXPORT("host_malloc") void* host_malloc(size_t bytes) {
  uint32_t n = bytes ? (uint32_t)((bytes + 15u) & ~(size_t)15u) : 16u;
  for (block** p = &free_list; *p; p = &(*p)->next)
    if ((*p)->size >= n) {
      block* b = *p;
      *p = b->next;
      stats[0]++;
      stats[2] += b->size;
      return (unsigned char*)b + HEADER;
    }
  if (!top)
    top = ((uintptr_t)&__heap_base + 15u) & ~(uintptr_t)15u;
  uint64_t start = top, end = start + HEADER + n;
  if (end > 0xFFFFFFFFull || !reserve(end))
    return NULL;
  top = (uintptr_t)end;
  block* b = (block*)(uintptr_t)start;
  b->size = n;
  b->next = NULL;
  stats[0]++;
  stats[2] += n;
  return (unsigned char*)b + HEADER;
}

HOST_EXPORT("host_free") void host_free(void* p) {
  if (!p)
    return;
  block* b = (block*)((unsigned char*)p - HEADER);
  b->next = free_list;
  free_list = b;
  stats[1]++;
  stats[2] -= b->size;
}

/* {mallocs, frees, live bytes, top of the bump region}. */
HOST_EXPORT("host_heap_stats") const uint32_t* host_heap_stats(void) {
  stats[3] = (uint32_t)top;
  return stats;
}
