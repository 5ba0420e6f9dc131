"""np.linalg and np.fft staged: the same dtype, shape and bits as NumPy on random inputs, batched
inputs and unknown dims; the errors NumPy raises (LinAlgError for a singular matrix, ...)."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from _library_helpers import check, check_raises

import staging
from staging import errors

RNG = np.random.default_rng(19)


def spd(*shape, dtype=np.float64):
    """Symmetric positive definite matrices: spd(n) is (n, n), spd(b, n) is (b, n, n)."""
    shape = shape + shape[-1:]
    a = RNG.standard_normal(shape).astype(dtype)
    return (a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1], dtype=dtype)).astype(dtype)


SQUARE = RNG.standard_normal((4, 4))
BATCH = RNG.standard_normal((2, 3, 4, 4))
WIDE = RNG.standard_normal((3, 5))
TALL32 = RNG.standard_normal((2, 5, 3)).astype(np.float32)
COMPLEX = RNG.standard_normal((3, 3)) + 1j * RNG.standard_normal((3, 3))
INTS = RNG.integers(-3, 4, (3, 3))

LA = np.linalg
MATRIX_CASES = [
    (lambda a: LA.inv(a), [SQUARE, BATCH, COMPLEX, INTS, SQUARE.astype(np.float32)]),
    (lambda a: LA.det(a), [SQUARE, BATCH, COMPLEX, INTS]),
    (lambda a: LA.slogdet(a), [SQUARE, BATCH, COMPLEX]),
    (lambda a: LA.cholesky(a), [spd(4), spd(2, 3), spd(3, dtype=np.float32)]),
    (lambda a: LA.cholesky(a, upper=True), [spd(4)]),
    (lambda a: LA.eigh(a), [spd(4), spd(2, 3)]),
    (lambda a: LA.eigh(a, UPLO="U"), [spd(4)]),
    (lambda a: LA.eigvalsh(a), [spd(4), spd(2, 3)]),
    (lambda a: LA.pinv(a), [WIDE, TALL32]),
    (lambda a: LA.pinv(a, hermitian=True), [spd(3)]),
    (lambda a: LA.matrix_power(a, 3), [SQUARE, BATCH, INTS]),
    (lambda a: LA.matrix_power(a, -2), [SQUARE]),
    (lambda a: LA.matrix_power(a, 0), [INTS]),
    (lambda a: LA.matrix_rank(a), [WIDE, TALL32, np.zeros((3, 3)), np.ones(4)]),
    (lambda a: LA.matrix_norm(a), [WIDE, TALL32, COMPLEX]),
    (lambda a: LA.matrix_norm(a, ord=2, keepdims=True), [WIDE, TALL32]),
    (lambda a: LA.matrix_norm(a, ord=np.inf), [BATCH]),
    (lambda a: LA.vector_norm(a), [WIDE, TALL32, INTS]),
    (lambda a: LA.vector_norm(a, axis=(0, 2), ord=1, keepdims=True), [TALL32]),
    (lambda a: LA.vector_norm(a, axis=-1, ord=np.inf), [BATCH]),
    (lambda a: LA.norm(a), [WIDE, INTS]),
    (lambda a: LA.norm(a, "fro", axis=(1, 2)), [TALL32]),
    (lambda a: LA.norm(a, 1, axis=0, keepdims=True), [WIDE]),
    (lambda a: LA.qr(a), [WIDE, TALL32]),
    (lambda a: LA.qr(a, mode="complete"), [WIDE, TALL32]),
    (lambda a: LA.qr(a, mode="r"), [WIDE]),
    (lambda a: LA.qr(a, mode="raw"), [WIDE]),
    (lambda a: LA.svd(a), [WIDE, TALL32, COMPLEX]),
    (lambda a: LA.svd(a, full_matrices=False), [WIDE, TALL32]),
    (lambda a: LA.svd(a, compute_uv=False), [WIDE, BATCH]),
    (lambda a: LA.svdvals(a), [WIDE, TALL32]),
    (lambda a: LA.matrix_transpose(a), [WIDE, BATCH]),
    (lambda a: np.matrix_transpose(a), [TALL32]),
    (lambda a: LA.diagonal(a, offset=1), [WIDE, BATCH]),
    (lambda a: LA.trace(a), [WIDE, BATCH, INTS]),
    (lambda a: LA.trace(a, offset=-1, dtype=np.float32), [WIDE]),
]


@pytest.mark.parametrize("fn,inputs", MATRIX_CASES, ids=[str(i) for i in range(len(MATRIX_CASES))])
def test_matrix_functions(fn, inputs):
    for a in inputs:
        check(fn, a)


VEC = RNG.standard_normal((4, 3))
VEC32 = RNG.standard_normal((3,)).astype(np.float32)


@pytest.mark.parametrize(
    "fn,args",
    [
        (lambda a, b: LA.solve(a, b), (SQUARE, RNG.standard_normal(4))),
        (lambda a, b: LA.solve(a, b), (SQUARE, RNG.standard_normal((4, 2)))),
        (lambda a, b: LA.solve(a, b), (BATCH, RNG.standard_normal((3, 4, 1)))),
        (lambda a, b: LA.solve(a, b), (COMPLEX, INTS)),
        (lambda a, b: LA.cross(a, b), (VEC, VEC32)),
        (lambda a, r: LA.pinv(a, rtol=r), (TALL32, np.array([0.5, 1e-3], np.float32))),
        (lambda a, b: LA.cross(a, b, axis=0), (VEC.T, VEC.T[::-1])),
        (lambda a, b: LA.outer(a, b), (VEC32, VEC[0])),
        (lambda a, b: np.tensordot(a, b), (BATCH, SQUARE)),
        (lambda a, b: np.tensordot(a, b, axes=([1, 0], [1, 0])), (WIDE.T.reshape(5, 3, 1), WIDE.T)),
        (lambda a, b: np.tensordot(a, b, axes=0), (VEC32, VEC[0])),
        (
            lambda a, b: LA.tensordot(a, b, axes=1),
            (WIDE, VEC32.astype(np.float64).repeat(5).reshape(5, 3)),
        ),
        (lambda a, b: LA.matmul(a, b), (BATCH, SQUARE)),
        (lambda a, b: LA.vecdot(a, b), (VEC, VEC32)),
        (lambda a, b: LA.vecdot(a, b, axis=0), (VEC, VEC[::-1])),
        (lambda a, b: np.vecdot(a, b, axis=0), (VEC, VEC[::-1].astype(np.float32))),
        (lambda a, b: np.vecdot(a, b, axis=-2), (BATCH, BATCH)),
    ],
)
def test_two_operand_functions(fn, args):
    check(fn, *args)


def _numpy_accepts_2_vectors_in_cross() -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            np.cross(np.ones(2), np.ones(2))
        except ValueError:  # NumPy >= 2.5 refuses them (deprecated since 2.0)
            return False
    return True


def test_np_cross_of_2_and_3_vectors():
    # staged np.cross does what the installed NumPy does with 2-vectors: compute, or refuse
    for args in ((VEC, VEC[:, :2]), (VEC[:, :2], VEC[::-1, :2])):
        if _numpy_accepts_2_vectors_in_cross():
            check(np.cross, *args, generalize=False)
        else:
            with pytest.raises(ValueError) as eager:
                np.cross(*args)
            with pytest.raises(ValueError) as staged:
                staging.function(np.cross, autograph=False)(*args)
            assert str(eager.value) == str(staged.value)  # eager's message; the line in a note
            assert "test_linalg_fft.py" in "\n".join(staged.value.__notes__)
    f = staging.function(np.cross, autograph=False)
    spec = staging.TensorSpec([None, None], np.float64)
    with pytest.raises(ValueError, match=r"the length of the vectors") as info:
        f.get_concrete_function(spec, spec)
    assert re.search(r"test_linalg_fft\.py:\d+: cross", "\n".join(info.value.__notes__))


def test_results_are_numpys_named_tuples():
    def f(a):
        q, r = LA.qr(a)
        return (
            LA.qr(a).Q,
            r,
            LA.svd(a).S,
            LA.slogdet(a @ a.T).logabsdet,
            LA.eigh(a @ a.T).eigenvalues,
            q,
        )

    check(f, WIDE)


def test_singular_matrix_raises_linalg_error_like_numpy():
    singular = np.ones((3, 3))
    for fn in (
        LA.inv,
        lambda a: LA.solve(a, np.ones(3)),
        LA.cholesky,
        lambda a: LA.matrix_power(a, -1),
    ):
        check_raises(fn, singular, error=LA.LinAlgError)
    check_raises(LA.inv, np.stack([np.eye(3), singular]), error=LA.LinAlgError)


@pytest.mark.parametrize(
    "fn,arg",
    [
        (LA.inv, WIDE),
        (LA.det, WIDE),
        (LA.cholesky, np.ones(3)),
        (LA.eigh, WIDE),
        (LA.svd, np.ones(3)),
        (LA.inv, np.ones((2, 2), np.float16)),
    ],
)
def test_shape_and_dtype_errors_are_numpys_at_trace_time(fn, arg):
    error = check_raises(lambda a: fn(a), arg, error=(LA.LinAlgError, TypeError))
    assert "test_linalg_fft.py" in "\n".join(getattr(error, "__notes__", ()))  # eager's message


def test_solve_mismatch_and_cross_length_errors():
    check_raises(LA.solve, SQUARE, np.ones(3), error=ValueError)
    check_raises(LA.cross, VEC[:, :2], VEC[:, :2], error=ValueError)
    check_raises(lambda a, b: np.tensordot(a, b, 1), VEC, VEC, error=ValueError)


def test_value_dependent_dtype_eig_is_refused_by_name():
    f = staging.function(lambda a: LA.eig(a), autograph=False)
    with pytest.raises(
        errors.UnsupportedOpError, match=r"test_linalg_fft\.py:\d+.*np\.linalg\.eig.*eigh"
    ):
        f(SQUARE)


# --- fft --------------------------------------------------------------------------------------

SIGNAL = RNG.standard_normal((3, 8))
ODD32 = RNG.standard_normal((2, 7)).astype(np.float32)
CSIGNAL = (RNG.standard_normal((4, 6)) + 1j * RNG.standard_normal((4, 6))).astype(np.complex64)
FFT = np.fft


@pytest.mark.parametrize(
    "fn",
    [
        FFT.fft,
        FFT.ifft,
        FFT.rfft,
        FFT.ihfft,
        FFT.fftn,
        FFT.ifftn,
        FFT.rfftn,
        FFT.fft2,
        FFT.ifft2,
        FFT.rfft2,
        FFT.fftshift,
        FFT.ifftshift,
        lambda x: FFT.fft(x, n=5, axis=0),
        lambda x: FFT.ifft(x, 16, norm="ortho"),
        lambda x: FFT.rfft(x, n=11),
        lambda x: FFT.fftn(x, s=(2, 9), axes=(0, 1)),
        lambda x: FFT.rfftn(x, axes=(0,), norm="forward"),
        lambda x: FFT.fftshift(x, axes=1),
        lambda x: FFT.ihfft(x, n=4, axis=0),
    ],
)
@pytest.mark.parametrize(
    "x", [SIGNAL, ODD32, RNG.integers(0, 5, (2, 4))], ids=["f64", "f32", "i64"]
)
def test_real_input_transforms(fn, x):
    check(fn, x)


@pytest.mark.parametrize(
    "fn",
    [
        FFT.fft,
        FFT.ifft,
        FFT.irfft,
        FFT.hfft,
        FFT.irfftn,
        FFT.irfft2,
        FFT.fftn,
        lambda x: FFT.irfft(x, n=9),
        lambda x: FFT.hfft(x, 7, axis=0),
        lambda x: FFT.irfftn(x, s=(4, 10)),
        # s[i] == -1: the input's length, for irfftn's last axis too (its static shape was
        # 2 * (6 - 1) = 10 while tracing)
        lambda x: FFT.irfftn(x, s=(4, -1), axes=(0, 1)),
        lambda x: FFT.irfft2(x, s=(-1, -1)) + np.ones(6),
    ],
)
@pytest.mark.parametrize("x", [CSIGNAL, CSIGNAL.astype(np.complex128)], ids=["c64", "c128"])
def test_complex_input_transforms(fn, x):
    check(fn, x)


def test_batched_fft_and_roundtrip():
    x = RNG.standard_normal((2, 3, 16))
    check(lambda x: FFT.irfft(FFT.rfft(x), n=16), x)
    check(lambda x: FFT.ifftn(FFT.fftn(x, axes=(1, 2)), axes=(1, 2)).real, x)


def test_fft_errors_are_numpys():
    check_raises(
        lambda x: FFT.fft(x, n=0),
        SIGNAL,
        error=ValueError,
        match="Invalid number of FFT data points",
    )
    check_raises(lambda x: FFT.fft(x, axis=2), SIGNAL, error=IndexError)
    check_raises(lambda x: FFT.irfft(x), np.ones(1, complex), error=ValueError)


def test_fftfreq_with_static_sizes_runs_as_numpy():
    check(lambda x: x[:8] * FFT.fftfreq(8, d=0.5) + FFT.rfftfreq(15)[:8], np.ones(8))
