"""No module outside the kernel package (``agi_core/kernel/``) touches a private attribute of a ``Kernel``.

Functions that used to write kernel fields (``kernel._due``, ``kernel._receipt``) return what they
produce instead, and the kernel stores it. The check walks the AST of every module under
``agi_core/``: an attribute ``X._name`` is refused where ``X`` is a variable named ``kernel``,
an attribute ``….kernel``, or a name annotated ``Kernel`` somewhere in that module.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

AGI_CORE = Path(__file__).resolve().parents[1] / "agi_core"
KERNEL_TYPE = re.compile(r"\bKernel\b")


def _kernel_names(tree: ast.AST) -> set[str]:
    """``kernel``, and every argument or variable the module annotates as ``Kernel``."""
    names = {"kernel"}
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            if KERNEL_TYPE.search(ast.unparse(node.annotation)):
                names.add(node.arg)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if KERNEL_TYPE.search(ast.unparse(node.annotation)):
                names.add(node.target.id)
    return names


def private_kernel_accesses(source: str, filename: str) -> list[str]:
    """One line per access to a Kernel's private attribute in ``source``: where, what, and the fix."""
    tree = ast.parse(source, filename)
    names = _kernel_names(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        private = node.attr.startswith("_") and not node.attr.startswith("__")
        owner = node.value
        is_kernel = (isinstance(owner, ast.Name) and owner.id in names) or (
            isinstance(owner, ast.Attribute) and owner.attr == "kernel"
        )
        if private and is_kernel:
            found.append(
                f"{filename}:{node.lineno}: {ast.unparse(node)} touches a private attribute of the Kernel; "
                "return what the function produces (or read it from the TickScope) and let the kernel store it"
            )
    return found


def test_no_module_outside_the_kernel_touches_a_kernel_private_attribute():
    found = []
    for path in sorted(AGI_CORE.rglob("*.py")):
        if (AGI_CORE / "kernel") in path.parents:
            continue
        found += private_kernel_accesses(path.read_text(encoding="utf-8"), str(path.relative_to(AGI_CORE.parent)))
    assert found == [], "\n".join(found)


def test_the_check_finds_reads_and_writes_through_any_kernel_name():
    source = """
def act(kernel, due):
    kernel._due = due

def settle(agent: "Kernel"):
    return agent._receipt

class Settings:
    def rows(self):
        return self.kernel._working

def fine(kernel, other):
    return kernel.tick_count, other._private, kernel.__class__
"""
    assert private_kernel_accesses(source, "x.py") == [
        f"x.py:{line}: {expr} touches a private attribute of the Kernel; return what the function produces "
        "(or read it from the TickScope) and let the kernel store it"
        for line, expr in ((3, "kernel._due"), (6, "agent._receipt"), (10, "self.kernel._working"))
    ]
