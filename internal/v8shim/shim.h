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
  uint64_t hits;
} cm_heap_state;

void cm_track_rejections(void* isolate);
void cm_heap_guard_add(cm_heap_state* state);
void cm_heap_guard_remove(cm_heap_state* state, size_t limit);
void cm_cancel_terminate(void* isolate);

#ifdef __cplusplus
}
#endif
#endif
