"""The engine's data by name (physics/layout.py): one table for the model's arrays and one for
the workspace, the kernels' records rebuilt from packed buffers exactly as the tables say."""

import ast
from pathlib import Path

import numpy as np
import pytest
from numba import njit

import physics
from physics.hot import hot_of, packed_hot_of, packed_workspace_of, workspace_of
from physics.layout import (HOT, WORK, Hot, Work, by_address, flat, for_stages, pack, unpack_hot, unpack_work,
                            work_chunks)
from physics_helpers import cluster_walker

PHYSICS = Path(physics.__file__).parent


@njit
def _hot(packed):
    return unpack_hot(*packed)


@njit
def _work(packed):
    return unpack_work(*packed)


@njit
def _chunks(packed):
    return work_chunks(packed)


@njit
def _hot_by_address(packed):
    return unpack_hot(*by_address(packed))


@njit
def _work_for_stages(packed, single):
    return unpack_work(*for_stages(packed, single))


def test_the_kernels_rebuild_the_model_record_from_its_packed_buffers_exactly():
    """Every field of the hot record, on bodies with joints, springs, clusters and collision
    pairs, comes back inside a kernel with its table row's dtype and axes, its values, as a view
    of the buffers (no copy)."""
    springs = physics.build_model(cluster_walker(), batch=5).with_values(joint_stiffness=5.0)
    pairs = physics.build_model(physics.examples.chain(), batch=3)
    assert springs.n_joints and springs.n_clusters and springs.joint_spring.any() and pairs.pair_a.size
    for model in (springs, pairs):
        hot, packed = hot_of(model), packed_hot_of(model)
        rebuilt = _hot(tuple(packed))
        assert type(rebuilt) is Hot and Hot._fields == tuple(f.name for f in HOT)
        # (and from the buffers' addresses, as the step hands them to its stages)
        for rebuilt in (rebuilt, _hot_by_address(tuple(packed))):
            for k, (field, a, b) in enumerate(zip(HOT, hot, rebuilt)):
                assert a.dtype == b.dtype == field.dtype and a.ndim == b.ndim == len(field.axes), field.name
                assert a.shape == b.shape, field.name
                np.testing.assert_array_equal(a, b, err_msg=field.name)
                assert b.size == 0 or np.shares_memory(b, packed[packed.layout[k, 0]]), field.name


def test_per_creature_fields_have_the_creature_last():
    """A field whose axes end in B holds creature b's values at [..., b]: the model's own
    (B, ...) array moved, so the record reads it lane by lane."""
    model = physics.build_model(cluster_walker(), batch=4).with_values(radius=np.linspace(0.05, 0.08, 4)[:, None])
    hot = hot_of(model)
    assert np.unique(model.radius[:, 0]).size == 4
    np.testing.assert_array_equal(hot.radius[:, :4], model.radius.T)
    np.testing.assert_array_equal(hot.bone_rest[:, :4], model.bone_rest.T)
    np.testing.assert_array_equal(hot.cluster_rest[..., :4], np.moveaxis(model.cluster_rest, 0, -1))


@pytest.mark.parametrize("batch, lanes", [(1, 8), (5, 8), (8, 8), (11, 16), (150, 152)])
def test_a_batch_has_its_last_creatures_arrays_to_a_whole_eight(batch, lanes):
    """A chunk steps whole eights of lanes (physics.hot.whole_eights; the skeleton's loops go a
    block of 8 at a time, physics/lanes.py): the lanes past the batch read copies of its last
    creature's arrays."""
    model = physics.build_model(cluster_walker(), batch=batch).with_values(
        radius=np.linspace(0.05, 0.08, batch)[:, None])
    hot = hot_of(model)
    np.testing.assert_array_equal(hot.radius[:, :batch], model.radius.T)
    np.testing.assert_array_equal(hot.radius[:, batch:], np.repeat(model.radius.T[:, -1:], lanes - batch, axis=1))
    assert all(getattr(hot, f.name).shape[-1] == lanes for f in HOT if f.axes[-1] == "B")


def test_the_workspace_is_made_from_its_table_and_unpacked_to_the_very_same_memory():
    """The workspace's shapes come from its table's axes (C chunks, C2 the chunks and their
    twins, L lanes); unpacked inside a kernel each field is the memory physics.hot.workspace_of
    hands out, 64-byte aligned."""
    model = physics.build_model(physics.examples.walker(), batch=21)
    packed = packed_workspace_of(model, 16)
    views, rebuilt = workspace_of(model, 16), _work(tuple(packed))
    assert type(views) is Work and type(rebuilt) is Work and len(views) == len(WORK) == packed.layout.shape[0]
    assert _chunks(tuple(packed)) == 2
    # the same memory from the arrays (the step compiled for one creature) and from their addresses
    ways = [rebuilt, _work_for_stages(tuple(packed), None), _work_for_stages(tuple(packed), False)]
    for field, a, b in ((f, a, b) for rebuilt in ways for f, a, b in zip(WORK, views, rebuilt)):
        chunks = 4 if field.axes[0] == "C2" else 2   # 2 chunks (and their twins)
        assert a.dtype == b.dtype == field.dtype and a.shape == b.shape and a.shape[0] == chunks, field.name
        assert a.shape[-1] == 16 or field.axes[-1] != "L", field.name
        if a.size:                  # (the walker has no joints: an empty array is anywhere)
            assert a.__array_interface__["data"][0] == b.__array_interface__["data"][0], field.name
            assert a.__array_interface__["data"][0] % 64 == 0, field.name


@njit
def _flat_then_write(a, value):
    row = flat(a)
    row[row.shape[0] - 1] = value
    return row.copy()


@njit
def _flat_of_a_column(a):
    return flat(a[:, 0])


def test_flat_views_a_contiguous_array_as_one_axis_in_place():
    a = np.arange(24.0).reshape(2, 3, 4)
    assert np.array_equal(_flat_then_write(a, -1.0), np.r_[np.arange(23.0), -1.0])
    assert a[1, 2, 3] == -1.0   # the same memory
    with pytest.raises(Exception, match="flat"):   # a strided view is not one axis
        _flat_of_a_column(np.zeros((3, 2)))


def test_an_array_that_is_not_its_rows_dtype_or_axes_is_refused_when_packed():
    """A wrong array cannot be packed as a field (the kernel would read it as another's)."""
    rows = HOT[:1]                                   # bone_a: int64 (E,)
    pack(rows, {"bone_a": np.arange(3)})
    with pytest.raises(TypeError, match="bone_a"):
        pack(rows, {"bone_a": np.arange(3.0)})
    with pytest.raises(TypeError, match="bone_a"):
        pack(rows, {"bone_a": np.zeros((2, 3), np.int64)})


def test_every_field_is_named_once_and_no_kernel_reads_a_record_by_number():
    """Field names are unique, and no physics module reads the workspace or the layout by a
    numeric position (``work[21]``, ``L[21]``, ``work[13:21]``): the kernels read fields by name."""
    assert len({f.name for f in HOT}) == len(HOT) and len({f.name for f in WORK}) == len(WORK)
    offenders = []
    for path in sorted(PHYSICS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)
                    and node.value.id in ("work", "hot", "L", "layout", "wk")):
                index = node.slice
                if isinstance(index, ast.Constant) or isinstance(index, ast.Slice):
                    offenders.append(f"{path.name}:{node.lineno}")
    assert offenders == []


def test_every_array_of_the_skeletons_plan_is_a_field_of_the_table():
    """physics/hot.py hands the plan's arrays to the table whole: none may go unnamed."""
    from physics.skeleton import plan_skeleton
    model = physics.build_model(cluster_walker(), batch=2)
    soft = model.bone_soft
    plan = plan_skeleton(model.bone_a, model.bone_b, np.flatnonzero(~soft), np.flatnonzero(soft), model.joint_a,
                         model.joint_c, model.joint_b, model.joint_limited, model.n_spheres, model.cluster_start,
                         model.cluster_sphere, model.muscle_bone)
    assert set(plan) <= {f.name for f in HOT}


def test_the_skeletons_stages_read_only_what_a_chunks_twin_has():
    """physics/step.py solves some creatures again in a chunk's twin (chunk index C + c): every
    workspace field the skeleton's factor and solve read must have the twin axis C2, or that
    solve would read past the field's chunks (no bounds check in the kernels)."""
    import inspect
    import re

    from physics import skeleton

    axes = {f.name: f.axes[0] for f in WORK}
    read = set()
    for stage in (skeleton.factor_skeleton, skeleton.solve_skeleton, skeleton.skeleton_scratch):
        read |= set(re.findall(r"work\.(\w+)\[c\]", inspect.getsource(stage.py_func)))
    assert {"x", "p", "lifted", "sk_factor"} <= read
    assert all(axes[name] == "C2" for name in read), {n: axes[n] for n in read if axes[n] != "C2"}
