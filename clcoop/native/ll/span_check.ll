; Whether bytes [lo, hi) lie in one row of the region table, aligned to al from its start and
; writable when w (clcoop/native/coop_routines.py: a matrix access whose pointer's region is
; not known statically). $-brace names: clcoop/native/context.py's layouts.
define internal i1 @__clcoop_span_row(ptr %c, i64 %lo, i64 %hi, i64 %al, i1 %w, i64 %i) alwaysinline {
entry:
  %tp = getelementptr i64, ptr %c, i64 ${CTX.table}
  %t = load ptr, ptr %tp
  %nowrap = icmp ule i64 %lo, %hi
  %i3 = mul i64 %i, ${REGION_ROW_WORDS}
  %rp = getelementptr i64, ptr %t, i64 %i3
  %rlp = getelementptr i64, ptr %rp, i64 ${REGION_LO}
  %rlo = load i64, ptr %rlp
  %rhp = getelementptr i64, ptr %rp, i64 ${REGION_HI}
  %rhi = load i64, ptr %rhp
  %rfp = getelementptr i64, ptr %rp, i64 ${REGION_FLAGS}
  %rfl = load i64, ptr %rfp
  %ge = icmp uge i64 %lo, %rlo
  %le = icmp ule i64 %hi, %rhi
  %in0 = and i1 %ge, %le
  %in = and i1 %in0, %nowrap
  %rel = sub i64 %lo, %rlo
  %mis = urem i64 %rel, %al
  %aligned = icmp eq i64 %mis, 0
  %canw = icmp ne i64 %rfl, 0
  %nw = xor i1 %w, true
  %perm = or i1 %nw, %canw
  %ok0 = and i1 %in, %aligned
  %ok = and i1 %ok0, %perm
  ret i1 %ok
}

define internal i1 @__clcoop_span_ok(ptr %c, i64 %lo, i64 %hi, i64 %al, i1 %w) {
entry:
  %np = getelementptr i64, ptr %c, i64 ${CTX.table_count}
  %n = load i64, ptr %np
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %inext, %next ]
  %more = icmp ult i64 %i, %n
  br i1 %more, label %body, label %no
body:
  %ok = call i1 @__clcoop_span_row(ptr %c, i64 %lo, i64 %hi, i64 %al, i1 %w, i64 %i)
  %inext = add i64 %i, 1
  br i1 %ok, label %yes, label %next
next:
  br label %loop
yes:
  ret i1 true
no:
  ret i1 false
}
