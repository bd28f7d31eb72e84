"""The GPU device: reused, and the fallback without one."""

import os
import subprocess
import sys

import numpy as np

import collidoscope as cs


def test_one_device_per_process(gpu):
    assert cs.gpu_adapter() == gpu


NO_GPU = r"""
import warnings, numpy as np, collidoscope as cs
v = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=float)
f = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])
mesh = cs.Mesh(v, f)
assert cs.gpu_adapter() is None
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    d = cs.signed_distance(mesh, np.array([[0.1, 0.1, 0.1]]))
assert d[0] < 0, d
assert any("computing on the CPU" in str(w.message) for w in caught), caught
try:
    cs.signed_distance(mesh, np.zeros((1, 3)), backend="gpu")
except RuntimeError as e:
    assert "mesa-vulkan-drivers" in str(e), e
else:
    raise AssertionError("backend='gpu' without a GPU must raise")
print("ok")
"""


def test_without_a_gpu_falls_back_to_the_cpu_with_a_warning():
    env = dict(os.environ, WGPU_BACKEND="vulkan", VK_ICD_FILENAMES="/nonexistent.json",
               VK_DRIVER_FILES="/nonexistent.json")
    out = subprocess.run([sys.executable, "-c", NO_GPU], env=env, capture_output=True, text=True)
    assert out.returncode == 0 and "ok" in out.stdout, out.stderr
