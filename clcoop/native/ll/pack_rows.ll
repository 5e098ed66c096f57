; The padded copies of packed_loads.py, made by the worker pool's threads: a pool driver
; (runtime.py's protocol: job, template, first, count, arena, fault record) that takes
; chunks of ${PACK_CHUNK} rows from the job's counter (the launch block's group counter,
; which clcoop_launch zeroes) and copies row r of each: min(width, size - r * stride)
; bytes of the source at r * stride to the copy at r * width. It never faults.

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define internal i64 @job_word(ptr %job, i64 %i) {
  %p = getelementptr i64, ptr %job, i64 %i
  %v = load i64, ptr %p, align 8
  ret i64 %v
}

define void @clcoop_pack_rows(ptr %job, ptr %tmpl, i64 %first, i64 %count, ptr %arena, ptr %fout) {
entry:
  %srcw = call i64 @job_word(ptr %job, i64 ${J_SOURCE})
  %dstw = call i64 @job_word(ptr %job, i64 ${J_COPY})
  %stride = call i64 @job_word(ptr %job, i64 ${J_STRIDE})
  %width = call i64 @job_word(ptr %job, i64 ${J_WIDTH})
  %rows = call i64 @job_word(ptr %job, i64 ${J_ROWS})
  %size = call i64 @job_word(ptr %job, i64 ${J_SIZE})
  %counterw = call i64 @job_word(ptr %job, i64 ${J_COUNTER})
  %src = inttoptr i64 %srcw to ptr
  %dst = inttoptr i64 %dstw to ptr
  %counter = inttoptr i64 %counterw to ptr
  br label %take
take:
  %r0 = atomicrmw add ptr %counter, i64 ${PACK_CHUNK} monotonic, align 8
  %more = icmp ult i64 %r0, %rows
  br i1 %more, label %chunk, label %done
chunk:
  %end0 = add i64 %r0, ${PACK_CHUNK}
  %past = icmp ugt i64 %end0, %rows
  %end = select i1 %past, i64 %rows, i64 %end0
  br label %row
row:
  %r = phi i64 [ %r0, %chunk ], [ %r1, %row ]
  %from = mul i64 %r, %stride
  %to = mul i64 %r, %width
  %left = sub i64 %size, %from
  %short = icmp ult i64 %left, %width
  %n = select i1 %short, i64 %left, i64 %width
  %s = getelementptr i8, ptr %src, i64 %from
  %d = getelementptr i8, ptr %dst, i64 %to
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 %n, i1 false)
  %r1 = add i64 %r, 1
  %again = icmp ult i64 %r1, %end
  br i1 %again, label %row, label %take
done:
  ret void
}
