#ifndef CODEMODE_V8SHIM_H
#define CODEMODE_V8SHIM_H
#include <stddef.h>
#include <stdint.h>

#define CM_REJECT_HOOK "__codemode_reject__"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  void* isolate;
  size_t headroom;
  uint64_t hits;        /* near-heap-limit events */
  uint64_t cell_limit;  /* heap + external bytes allowed; 0 = none */
  uint64_t over;        /* set when an interrupt found cell_limit passed */
  uint64_t last_used;   /* heap + external bytes at the last interrupt */
} cm_heap_state;

void cm_track_rejections(void* isolate);
int cm_adopt_reject_hook(void* isolate);
void cm_heap_guard_add(cm_heap_state* state);
void cm_heap_guard_remove(cm_heap_state* state, size_t limit);
void cm_cancel_terminate(void* isolate);
void* cm_enter(void* isolate);
void cm_exit(void* isolate, void* locker);
int cm_is_locked(void* isolate);
void cm_heap_check(cm_heap_state* state);

#ifdef __cplusplus
}
#endif
#endif
