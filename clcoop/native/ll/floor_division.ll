; NumPy's int64 // and % (floor, the sign of the divisor), with its results for a zero
; divisor (0) and for INT64_MIN // -1 (wraps): interp/tensor.py computes with them.
; (clcoop/native/tensor_routines.py links these into a module that has tensor operations.)
define internal i64 @__clcoop_tfdiv(i64 %a, i64 %b) alwaysinline {
entry:
  ; the usual operands take a short way: b == 1 (a block size), or a and b in [0, 2^32)
  ; with b > 0 (a 32-bit unsigned division: the floor, and several times faster)
  %one = icmp eq i64 %b, 1
  br i1 %one, label %unit, label %narrow.test
unit:
  ret i64 %a
narrow.test:
  %ab = or i64 %a, %b
  %fits = icmp ult i64 %ab, 4294967296
  %bnz = icmp ne i64 %b, 0
  %narrow = and i1 %fits, %bnz
  br i1 %narrow, label %short, label %general
short:
  ; a < b (a coordinate inside its dimension, the usual case): no division
  %below = icmp ult i64 %a, %b
  br i1 %below, label %zero.q, label %divide
zero.q:
  ret i64 0
divide:
  %a32 = trunc i64 %a to i32
  %b32 = trunc i64 %b to i32
  %q32 = udiv i32 %a32, %b32
  %q64 = zext i32 %q32 to i64
  ret i64 %q64
general:
  %zero = icmp eq i64 %b, 0
  %m1 = icmp eq i64 %b, -1
  %odd = or i1 %zero, %m1
  %safe = select i1 %odd, i64 1, i64 %b
  %q = sdiv i64 %a, %safe
  %r = srem i64 %a, %safe
  %rnz = icmp ne i64 %r, 0
  %x = xor i64 %r, %safe
  %neg = icmp slt i64 %x, 0
  %adj = and i1 %rnz, %neg
  %q1 = sub i64 %q, 1
  %qf = select i1 %adj, i64 %q1, i64 %q
  %na = sub i64 0, %a
  %qm = select i1 %m1, i64 %na, i64 %qf
  %res = select i1 %zero, i64 0, i64 %qm
  ret i64 %res
}

define internal i64 @__clcoop_tfmod(i64 %a, i64 %b) alwaysinline {
entry:
  %one = icmp eq i64 %b, 1
  br i1 %one, label %unit, label %narrow.test
unit:
  ret i64 0
narrow.test:
  %ab = or i64 %a, %b
  %fits = icmp ult i64 %ab, 4294967296
  %bnz = icmp ne i64 %b, 0
  %narrow = and i1 %fits, %bnz
  br i1 %narrow, label %short, label %general
short:
  %below = icmp ult i64 %a, %b
  br i1 %below, label %same, label %divide
same:
  ret i64 %a
divide:
  %a32 = trunc i64 %a to i32
  %b32 = trunc i64 %b to i32
  %r32 = urem i32 %a32, %b32
  %r64 = zext i32 %r32 to i64
  ret i64 %r64
general:
  %zero = icmp eq i64 %b, 0
  %m1 = icmp eq i64 %b, -1
  %odd = or i1 %zero, %m1
  %safe = select i1 %odd, i64 1, i64 %b
  %r = srem i64 %a, %safe
  %rnz = icmp ne i64 %r, 0
  %x = xor i64 %r, %safe
  %neg = icmp slt i64 %x, 0
  %adj = and i1 %rnz, %neg
  %rb = add i64 %r, %safe
  %rf = select i1 %adj, i64 %rb, i64 %r
  %res = select i1 %odd, i64 0, i64 %rf
  ret i64 %res
}
