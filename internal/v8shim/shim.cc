// Header-free declarations of the few long-stable V8 entry points the shim
// uses. They must match the V8 in v8go's static library (10.9 on
// linux/amd64); the tests in this package fail if they do not.
#include <cstddef>
#include <cstdint>

#include "shim.h"

namespace v8 {
class Isolate;
class Context;
class Value;
class Object;
class Promise;
class String;
class Function;
class Private;

template <class T>
class Local {
 public:
  T* val_;
  T* operator->() const { return val_; }
  bool IsEmpty() const { return val_ == nullptr; }
};

template <class T>
class MaybeLocal {
 public:
  T* val_;
};

// Maybe<bool>: trivially copyable, returned in registers like V8's.
template <class T>
class Maybe {
 public:
  bool has_value_;
  T value_;
};

enum PromiseRejectEvent {
  kPromiseRejectWithNoHandler = 0,
  kPromiseHandlerAddedAfterReject = 1,
  kPromiseRejectAfterResolved = 2,
  kPromiseResolveAfterResolved = 3,
};

class PromiseRejectMessage {
 public:
  Local<Promise> promise_;
  PromiseRejectEvent event_;
  Local<Value> value_;
};

typedef void (*PromiseRejectCallback)(PromiseRejectMessage message);
typedef size_t (*NearHeapLimitCallback)(void* data, size_t current_heap_limit,
                                        size_t initial_heap_limit);

enum class NewStringType { kNormal, kInternalized };

typedef void (*InterruptCallback)(Isolate* isolate, void* data);

// HeapStatistics: only the constructor is called; the fields are read by
// offset (used_heap_size_ is the 5th size_t, external_memory_ the 8th), and
// the buffer is larger than the real class.
class HeapStatistics {
 public:
  HeapStatistics();
  size_t fields[32];
};

class Isolate {
 public:
  void SetPromiseRejectCallback(PromiseRejectCallback callback);
  Local<Context> GetCurrentContext();
  void TerminateExecution();
  void CancelTerminateExecution();
  void AddNearHeapLimitCallback(NearHeapLimitCallback callback, void* data);
  void RemoveNearHeapLimitCallback(NearHeapLimitCallback callback,
                                   size_t heap_limit);
  void RequestInterrupt(InterruptCallback callback, void* data);
  void GetHeapStatistics(HeapStatistics* heap_statistics);
  void Enter();
  void Exit();
};

// Locker: the constructor is inline in V8's headers (it calls Initialize),
// the fields are two bools and a pointer; padding guards against growth.
class Locker {
 public:
  explicit Locker(Isolate* isolate) { Initialize(isolate); }
  ~Locker();
  static bool IsLocked(Isolate* isolate);

 private:
  void Initialize(Isolate* isolate);
  bool has_lock_;
  bool top_level_;
  void* isolate_;
  void* pad_[6];
};

class Context {
 public:
  Local<Object> Global();
};

// TryCatch: constructed on the stack (V8 compares its address with JS
// frames); the fields are opaque and the buffer is larger than the class.
class TryCatch {
 public:
  explicit TryCatch(Isolate* isolate);
  ~TryCatch();

 private:
  void* fields_[32];
};

class Data {};

class Value : public Data {
 public:
  bool IsFunction() const;
};

class Private : public Data {
 public:
  static Local<Private> ForApi(Isolate* isolate, Local<String> name);
};

class Object : public Value {
 public:
  MaybeLocal<Value> Get(Local<Context> context, Local<Value> key);
  Maybe<bool> Delete(Local<Context> context, Local<Value> key);
  Maybe<bool> SetPrivate(Local<Context> context, Local<Private> key,
                         Local<Value> value);
  MaybeLocal<Value> GetPrivate(Local<Context> context, Local<Private> key);
};

class String : public Value {
 public:
  static MaybeLocal<String> NewFromUtf8(Isolate* isolate, const char* data,
                                        NewStringType type, int length);
};

class Function : public Object {
 public:
  MaybeLocal<Value> Call(Local<Context> context, Local<Value> recv, int argc,
                         Local<Value> argv[]);
};
}  // namespace v8

namespace {

thread_local v8::Isolate* current_isolate = nullptr;

// rejectKey is the private key (invisible to scripts: no reflection
// reaches a private symbol) under which a context's global keeps its
// rejection hook; see cm_adopt_reject_hook.
bool rejectKey(v8::Isolate* iso, v8::Local<v8::Value>* name,
               v8::Local<v8::Private>* key) {
  v8::MaybeLocal<v8::String> s = v8::String::NewFromUtf8(
      iso, CM_REJECT_HOOK, v8::NewStringType::kNormal, -1);
  if (s.val_ == nullptr) return false;
  v8::Local<v8::String> str{s.val_};
  *name = v8::Local<v8::Value>{(v8::Value*)s.val_};
  *key = v8::Private::ForApi(iso, str);
  return !key->IsEmpty();
}

void OnPromiseReject(v8::PromiseRejectMessage msg) {
  int handled;
  switch (msg.event_) {
    case v8::kPromiseRejectWithNoHandler:
      handled = 0;
      break;
    case v8::kPromiseHandlerAddedAfterReject:
      handled = 1;
      break;
    default:
      return;
  }
  v8::Isolate* iso = current_isolate;
  if (iso == nullptr) return;
  v8::Local<v8::Context> ctx = iso->GetCurrentContext();
  if (ctx.IsEmpty()) return;
  v8::Local<v8::Value> name;
  v8::Local<v8::Private> key;
  if (!rejectKey(iso, &name, &key)) return;
  v8::MaybeLocal<v8::Value> hook = ctx->Global()->GetPrivate(ctx, key);
  if (hook.val_ == nullptr || !hook.val_->IsFunction()) return;
  v8::Local<v8::Value> args[3];
  args[0] = v8::Local<v8::Value>{(v8::Value*)msg.promise_.val_};
  args[1] = msg.value_;
  if (args[1].IsEmpty()) args[1] = args[0];
  // A boolean would need more API; pass the promise itself again when the
  // handler was added later, and the reason otherwise. The hook tells the
  // two cases apart by arity of a third argument: see prelude.js.
  v8::Local<v8::Function> fn{(v8::Function*)hook.val_};
  // The hook may throw (a rejection deep in a runaway recursion overflows
  // the stack again in it). Without a TryCatch that exception would be
  // scheduled on the isolate and rethrown by the next call into V8 made
  // from Go, long after the script ended.
  v8::TryCatch try_catch(iso);
  if (handled) {
    fn->Call(ctx, args[0], 1, args);
  } else {
    fn->Call(ctx, args[0], 2, args);
  }
}

void OnInterrupt(v8::Isolate* iso, void* data) {
  auto* state = static_cast<cm_heap_state*>(data);
  v8::HeapStatistics hs;
  iso->GetHeapStatistics(&hs);
  uint64_t used = hs.fields[4] + hs.fields[7];
  state->last_used = used;
  if (state->cell_limit > 0 && used > state->cell_limit) {
    state->over = 1;
    iso->TerminateExecution();
  }
}

size_t OnNearHeapLimit(void* data, size_t current, size_t initial) {
  auto* state = static_cast<cm_heap_state*>(data);
  state->hits++;
  reinterpret_cast<v8::Isolate*>(state->isolate)->TerminateExecution();
  return current + state->headroom;
}

}  // namespace

extern "C" {

void cm_track_rejections(void* isolate) {
  current_isolate = static_cast<v8::Isolate*>(isolate);
  static_cast<v8::Isolate*>(isolate)->SetPromiseRejectCallback(OnPromiseReject);
}

int cm_adopt_reject_hook(void* isolate) {
  auto* iso = static_cast<v8::Isolate*>(isolate);
  v8::Local<v8::Context> ctx = iso->GetCurrentContext();
  if (ctx.IsEmpty()) return 0;
  v8::Local<v8::Value> name;
  v8::Local<v8::Private> key;
  if (!rejectKey(iso, &name, &key)) return 0;
  v8::Local<v8::Object> global = ctx->Global();
  v8::MaybeLocal<v8::Value> hook = global->Get(ctx, name);
  if (hook.val_ == nullptr || !hook.val_->IsFunction()) return 0;
  v8::Maybe<bool> set =
      global->SetPrivate(ctx, key, v8::Local<v8::Value>{hook.val_});
  if (!set.has_value_ || !set.value_) return 0;
  v8::Maybe<bool> del = global->Delete(ctx, name);
  return del.has_value_ && del.value_ ? 1 : 0;
}

void cm_heap_guard_add(cm_heap_state* state) {
  static_cast<v8::Isolate*>(state->isolate)
      ->AddNearHeapLimitCallback(OnNearHeapLimit, state);
}

void cm_heap_guard_remove(cm_heap_state* state, size_t limit) {
  static_cast<v8::Isolate*>(state->isolate)
      ->RemoveNearHeapLimitCallback(OnNearHeapLimit, limit);
}

void cm_heap_check(cm_heap_state* state) {
  static_cast<v8::Isolate*>(state->isolate)->RequestInterrupt(OnInterrupt, state);
}

void* cm_enter(void* isolate) {
  auto* iso = static_cast<v8::Isolate*>(isolate);
  auto* locker = new v8::Locker(iso);
  iso->Enter();
  return locker;
}

void cm_exit(void* isolate, void* locker) {
  static_cast<v8::Isolate*>(isolate)->Exit();
  delete static_cast<v8::Locker*>(locker);
}

int cm_is_locked(void* isolate) {
  return v8::Locker::IsLocked(static_cast<v8::Isolate*>(isolate)) ? 1 : 0;
}

void cm_cancel_terminate(void* isolate) {
  static_cast<v8::Isolate*>(isolate)->CancelTerminateExecution();
}

}  // extern "C"
