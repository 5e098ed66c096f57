"""The memory_order and memory_scope values of OpenCL C 2.0 atomics (OpenCL C 6.15.12, as
clang-22 numbers them), and which of them each built-in allows: both engines fault on the
others with the same words.
"""


MEMORY_ORDERS = {0: "memory_order_relaxed", 2: "memory_order_acquire",
                  3: "memory_order_release", 4: "memory_order_acq_rel",
                  5: "memory_order_seq_cst"}
MEMORY_SCOPES = {0: "memory_scope_work_item", 1: "memory_scope_work_group",
                  2: "memory_scope_device", 3: "memory_scope_all_svm_devices",
                  4: "memory_scope_sub_group"}


def enum_checks(base, params):
    """[(argument index, kind, {allowed value: name}, rule)] for the memory_order and
    memory_scope arguments of a built-in (OpenCL C 6.15.12): values outside the enums are
    faults, and so are the orders and scopes the specification rules out for the function."""
    checks, orders = [], 0
    for k, p in enumerate(params or ()):
        if p == ("other", "memory_order"):
            allowed, rule = dict(MEMORY_ORDERS), None
            if base.startswith("atomic_load") or (base.startswith("atomic_compare_exchange")
                                                  and orders == 1):
                allowed.pop(3), allowed.pop(4)
                rule = "the failure order of a compare-exchange" if orders else "the order of a load"
            elif base.startswith(("atomic_store", "atomic_flag_clear")):
                allowed.pop(2), allowed.pop(4)
                rule = "the order of a store or a flag clear"
            checks.append((k, "memory_order", allowed, rule))
            orders += 1
        elif p == ("other", "memory_scope"):
            allowed, rule = dict(MEMORY_SCOPES), None
            if base.startswith("atomic_") and base != "atomic_work_item_fence":
                allowed.pop(0)
                rule = "the scope of an atomic operation (only atomic_work_item_fence takes it)"
            checks.append((k, "memory_scope", allowed, rule))
    return checks
