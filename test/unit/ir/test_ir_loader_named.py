"""The loader's API for engines that read IR by value names (clcoop/ir/loader.py):
read_structs per parse, name_values (LLVM's instruction namer, the one naming the native
engine's one named parse, native/named_ir.py)."""
import llvmlite.binding as llvm

from clcoop.ir.loader import load_module, name_values, read_structs
from clcoop.native.jit import host_target_machine

IR = """
%struct.S = type { i32, float }

define internal i32 @helper(i32 %0) alwaysinline {
  %2 = add i32 %0, 1
  ret i32 %2
}

define spir_kernel void @k(ptr addrspace(1) %p, i32 %0) {
  %2 = call i32 @helper(i32 %0)
  %3 = icmp sgt i32 %2, 0
  br i1 %3, label %4, label %5
4:
  %f = getelementptr %struct.S, ptr addrspace(1) %p, i64 0, i32 0
  store i32 %2, ptr addrspace(1) %f
  br label %5
5:
  ret void
}
"""


def _unnamed(fn):
    blocks = [b for b in fn.blocks if not b.name]
    values = [i for b in fn.blocks for i in b.instructions if not i.name and not str(i.type) == "void"]
    args = [a for a in fn.arguments if not a.name]
    return blocks + values + args


def test_name_values_names_every_value_and_block_and_a_parse_reads_its_own_structs():
    module = load_module(IR)
    assert _unnamed(module.llvm_module.get_function("k"))      # the loaded module is left as read
    mod = name_values(llvm.parse_assembly(IR), host_target_machine())
    structs = read_structs(mod)
    assert not _unnamed(mod.get_function("k"))
    assert [s.fields for s in structs.values()] == [s.fields for s in module.structs.values()]
    assert len(structs) == 1 and next(iter(structs.values())).fields[1].kind == "float"
    # A second parse of the same text: LLVM renames its struct (struct.S.0 or so) and
    # read_structs reads that parse's name.
    again = llvm.parse_assembly(IR)
    assert set(read_structs(again)) == {s.name for s in again.struct_types if s.name}


def test_name_values_inlines_only_when_asked():
    plain = name_values(llvm.parse_assembly(IR), host_target_machine())
    assert "call i32 @helper" in str(plain.get_function("k"))
    inlined = name_values(llvm.parse_assembly(IR), host_target_machine(), inline=True)
    assert "call i32 @helper" not in str(inlined.get_function("k"))
    assert not _unnamed(inlined.get_function("k"))
