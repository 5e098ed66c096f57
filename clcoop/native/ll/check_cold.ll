; One out-of-line copy of runtime.ll's @__clcoop_chk for the masked copy of a lane-varying
; branch (clcoop/native/masking.py): it runs only in subgroups where the branch differs, and
; inlining one check per lane and access made the stencil's module take seconds to compile.
define internal ptr @__clcoop_chk_cold(ptr %c, ptr %p, i64 %n, i64 %al, i32 %site, i32 %kind, i64 %idx, i1 %w) noinline cold {
entry:
  %r = call ptr @__clcoop_chk(ptr %c, ptr %p, i64 %n, i64 %al, i32 %site, i32 %kind, i64 %idx, i1 %w)
  ret ptr %r
}
