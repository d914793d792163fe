"""``import strided`` loads the core only (issue 23): the Array API namespace, ``nn``, the
diagnostics and ``__version__`` load on first use, with no difference a user can see: Tensor
already has every method, each lazy name is the object the eager import gave, ``dir`` and
``from strided import *`` list them all. Each check runs in a fresh interpreter."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_import_leaves_the_lazy_parts_unloaded_and_gc_on():
    out = _run("""
        import gc, sys, strided
        lazy = ["strided.array_api._namespace", "strided.nn", "strided.diagnose", "importlib.metadata", "torch",
                "threading",  # (its primitives come from _thread)
                "strided.autograd.show", "strided.autograd.graph_picture"]
        print([m for m in lazy if m in sys.modules], gc.isenabled())
    """)
    assert out.split() == ["[]", "True"]


def test_the_import_leaves_the_collector_as_it_found_it():
    # Its objects end in the oldest generation, not frozen: gc.get_objects() sees them and
    # nothing stays in the permanent generation; a collector the user turned off stays off, and
    # objects the user froze stay frozen (unfreezing would thaw them).
    out = _run("""
        import gc, strided
        print(gc.isenabled(), gc.get_freeze_count(), any(o is strided.Tensor.add for o in gc.get_objects(2)))
    """)
    assert out.split() == ["True", "0", "True"]
    out = _run("""
        import gc
        gc.disable()
        mine = [[]]
        gc.freeze()
        import strided
        print(gc.isenabled(), gc.is_tracked(mine) and not any(o is mine for o in gc.get_objects()))
    """)
    assert out.split() == ["False", "True"]


def test_loading_the_lazy_parts_changes_no_tensor_method_nor_face_name():
    out = _run("""
        import sys, strided
        T = dict(vars(strided.Tensor))
        F = {k: v for k, v in vars(strided).items() if not k.startswith("_")}
        x = strided.ones(2)
        xp = x.__array_namespace__()
        loaded = [xp.sum, strided.nn.functional.linear, strided.explain, strided.draw, strided.watch,
                  strided.watch_torch, strided.__version__, strided.diagnose]
        changed = [k for k, v in vars(strided.Tensor).items() if T.get(k) is not v]
        moved = [k for k, v in F.items() if getattr(strided, k) is not v]
        from strided.diagnose.watch_torch import watch_torch
        from strided.diagnose.explain import explain
        from strided._version import __version__
        same = (strided.watch_torch is watch_torch, strided.explain is explain, strided.__version__ is __version__,
                strided.nn is sys.modules["strided.nn"], strided.array_api is xp)
        print(changed, moved, all(same))
    """)
    assert out.split() == ["[]", "[]", "True"]


def test_dir_and_star_import_see_the_lazy_names():
    out = _run("""
        import strided
        names = set(dir(strided))
        print(all(n in names for n in strided.__all__))
        space = {}
        exec("from strided import *", space)
        print(all(n in space for n in strided.__all__), space["nn"] is strided.nn, space["explain"] is strided.explain)
        import strided.array_api as xp
        print(all(n in dir(xp) for n in xp.__all__), xp.__array_api_version__, xp.linalg.__name__)
        from strided.array_api import sum as xsum
        print(xsum is xp.sum)
    """)
    assert out.split() == ["True", "True", "True", "True", "True", "2024.12", "strided.array_api.linalg", "True"]


def test_an_unknown_name_is_still_an_attribute_error():
    out = _run("""
        import strided, strided.array_api as xp
        for space in (strided, xp):
            try:
                space.no_such_name
            except AttributeError as e:
                print(type(e).__name__)
    """)
    assert out.split() == ["AttributeError", "AttributeError"]


def test_the_autograd_graph_pictures_load_on_first_use():
    out = _run("""
        import strided, strided.autograd as A
        names = set(dir(A))
        x = strided.ones(2, requires_grad=True)
        text = A.graph_text((x * 2).sum())
        from strided.autograd.show import graph_text
        from strided.autograd.graph_picture import graph_svg
        import strided.autograd.show as show, strided.autograd.graph_picture as picture
        print(A.graph_text is graph_text, A.graph_svg is graph_svg, A.show is show, A.graph_picture is picture,
              all(n in names for n in A.__all__ + ["show", "graph_picture"]), "_LAZY" in names,
              text.splitlines()[0])
        try:
            A.no_such_name
        except AttributeError as e:
            print(e)
    """)
    assert out.splitlines() == ["True True True True True False SumBackward0 -> (2,) float32",
                                "module 'strided.autograd' has no attribute 'no_such_name'"]


def test_the_result_named_tuples_are_made_on_first_use_as_module_level_classes():
    # strided.return_types' and ops/linalg/_results' classes (strided.lazy_names.classes_on_first_use):
    # not made by the import, listed by dir, one class for every thread, each as a module-level
    # definition makes it (name, qualname, module, fields), pickled by reference
    out = _run("""
        import pickle, sys, threading, strided
        rt, R = sys.modules["strided.ops._support.return_types"], sys.modules["strided.ops.linalg._results"]
        print("max" in vars(rt), "linalg_svd" in vars(R), "max" in dir(rt), "linalg_svd" in dir(R))
        seen = []
        threads = [threading.Thread(target=lambda: seen.append(rt.topk)) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(len({id(c) for c in seen}), seen[0] is strided.return_types.topk)
        r = strided.tensor([[1.0, 5.0], [3.0, 2.0]]).max(1)
        c = type(r)
        print(c is rt.max, c.__qualname__, c.__module__, c._fields, c._make.__qualname__)
        back = pickle.loads(pickle.dumps(r))
        print(type(back) is c, back.values.tolist(), type(strided.linalg.qr(strided.eye(2))).__qualname__)
        try:
            rt.no_such_name
        except AttributeError as e:
            print(type(e).__name__)
    """)
    assert out.splitlines() == ["False False True True", "1 True",
                                "True max strided.ops._support.return_types ('values', 'indices') max._make",
                                "True [5.0, 3.0] linalg_qr", "AttributeError"]


def test_an_aminmax_result_pickles_as_pytorchs():
    # PyTorch's torch.return_types.aminmax pickles; strided's class is named 'aminmax' in a module
    # whose 'aminmax' is the op, so pickle could not find it by name (PicklingError before)
    import pickle

    import torch

    import strided

    for lib in (torch, strided):
        x = lib.tensor([[3.0, -1.0], [0.5, 2.0]])
        for r in (x.aminmax(), lib.aminmax(x, dim=1, keepdim=True)):
            back = pickle.loads(pickle.dumps(r))
            assert type(back) is type(r) and type(back).__name__ == "aminmax"
            assert [v.tolist() for v in back] == [v.tolist() for v in r] and back.min.shape == r.min.shape
    out = _run("""
        import pickle, sys, strided
        data = pickle.dumps(strided.tensor([3.0, 1.0]).aminmax())
        import subprocess
        code = "import pickle, sys; r = pickle.loads(sys.stdin.buffer.read()); print(type(r).__name__, r.min.item(), r.max.item())"
        print(subprocess.run([sys.executable, "-c", code], input=data, capture_output=True).stdout.decode().strip())
    """)
    assert out.splitlines() == ["aminmax 1.0 3.0"]


def test_return_types_is_importable_by_its_public_name():
    # as torch.return_types: from strided.return_types import max (ModuleNotFoundError before);
    # the classes stay lazily made and keep their defining module
    out = _run("""
        import sys
        from strided.return_types import max, topk
        import strided
        import strided.return_types as rt
        print(rt is strided.return_types, type(strided.tensor([[1.0, 3.0]]).max(1)) is max, topk.__name__)
    """)
    assert out.splitlines() == ["True True topk"]
