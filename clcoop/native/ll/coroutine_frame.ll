; Coroutine frames of kernels with barriers (clcoop/native/runtime_ir.py loads it; the
; comment on FRAME_IR there says why they come from the driver's pool). $-brace names are
; context slots named once in clcoop/native/context.py (CTX).
define internal ptr @__clcoop_frame_alloc(ptr %c, ptr %slot, i64 %size) alwaysinline {
entry:
  %size63 = add i64 %size, 63
  %size64 = and i64 %size63, -64
  %capp = getelementptr i64, ptr %c, i64 ${CTX.frame_cap}
  %cap = load i64, ptr %capp
  %fits = icmp ule i64 %size64, %cap
  br i1 %fits, label %pool, label %heap
pool:
  ret ptr %slot
heap:
  %needp = getelementptr i64, ptr %c, i64 ${CTX.frame_need}
  store i64 %size64, ptr %needp
  %mem = call ptr @aligned_alloc(i64 64, i64 %size64)
  ret ptr %mem
}

define internal void @__clcoop_frame_free(ptr %mem, ptr %slot) alwaysinline {
entry:
  %pooled = icmp eq ptr %mem, %slot
  br i1 %pooled, label %done, label %heap
heap:
  call void @free(ptr %mem)
  br label %done
done:
  ret void
}
