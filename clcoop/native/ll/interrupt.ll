; The native SIGINT handler (clcoop/native/interrupt.py): while a launch is armed (@target
; holds its abort flag's address) a Ctrl-C sets that flag; otherwise it calls the handler
; it was installed in front of (@previous), when there is a real one.
@target = global i64 0
@previous = global i64 0
@interrupted = global i64 0

define void @clcoop_on_sigint(i32 %sig, ptr %info, ptr %uc) {
entry:
  %t = load atomic i64, ptr @target seq_cst, align 8
  %armed = icmp ne i64 %t, 0
  br i1 %armed, label %abort, label %chain
abort:
  %flag = inttoptr i64 %t to ptr
  store atomic i64 1, ptr %flag seq_cst, align 8
  store atomic i64 1, ptr @interrupted seq_cst, align 8
  ret void
chain:
  %p = load i64, ptr @previous, align 8
  %real = icmp ugt i64 %p, 1
  br i1 %real, label %call, label %done
call:
  %f = inttoptr i64 %p to ptr
  call void %f(i32 %sig, ptr %info, ptr %uc)
  br label %done
done:
  ret void
}
