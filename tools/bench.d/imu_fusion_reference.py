#!/usr/bin/env python3
"""Reference fusion runs for `tools/bench imu`: x-io Fusion (PyPI `imufusion`) and `ahrs` Mahony.

Usage: imu_fusion_reference.py DATA.f64 RESULT.json GAIN EVERY
DATA.f64 holds float64 rows (dt s, gx gy gz rad/s, ax ay az m/s^2) in a z-up body frame starting
level. Both filters run proportional-only Mahony (Fusion: gain = GAIN, rejection and gyro range
off; ahrs: k_P = GAIN, k_I = 1e-12, since
ahrs rejects 0) from the identity quaternion. Writes timings and every EVERY-th
quaternion (w, x, y, z). Installs the two packages with pip when they are missing.
"""
import importlib
import json
import subprocess
import sys
import time


def ensure(package, module):
    try:
        return importlib.import_module(module)
    except ImportError:
        subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", package])
        return importlib.import_module(module)


def main():
    data_path, result_path, gain, every = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
    np = ensure("numpy", "numpy")
    imufusion = ensure("imufusion", "imufusion")
    ensure("ahrs", "ahrs")
    from ahrs.filters import Mahony
    import importlib.metadata as md

    rows = np.fromfile(data_path, dtype=np.float64).reshape(-1, 7)
    dt = rows[:, 0]
    gyro_rad = np.ascontiguousarray(rows[:, 1:4])
    accel = np.ascontiguousarray(rows[:, 4:7])
    gyro_deg = np.degrees(gyro_rad)
    accel_g = accel / 9.80665
    n = len(rows)

    # Fusion: NWU, gain, gyroscope range 0 (off), acceleration/magnetic rejection 0 (off),
    # start-up gain ramp skipped (the data starts level, matching the identity quaternion).
    fusion = imufusion.Ahrs()
    rate = 1.0 / float(dt[0])
    if hasattr(imufusion, "AhrsSettings"):  # imufusion >= 1.3
        settings = imufusion.AhrsSettings()
        settings.convention = imufusion.CONVENTION_NWU
        settings.gain = gain
        settings.gyroscope_range = 0
        settings.acceleration_rejection = 0
        settings.magnetic_rejection = 0
        settings.rejection_timeout = 0
        settings.sample_rate = rate
        fusion.set_settings(settings)
        fusion.skip_startup()
        new_api = True
    else:  # imufusion 1.0-1.2
        fusion.settings = imufusion.Settings(imufusion.CONVENTION_NWU, gain, 0, 0, 0, 0)
        new_api = False
    fusion_q = []
    update = fusion.update_no_magnetometer
    start = time.perf_counter()
    if new_api:  # the sample period comes from the settings
        for i in range(n):
            update(gyro_deg[i], accel_g[i])
            if i % every == every - 1:
                fusion_q.append(fusion.get_quaternion().tolist())
    else:
        for i in range(n):
            update(gyro_deg[i], accel_g[i], dt[i])
            if i % every == every - 1:
                fusion_q.append(fusion.quaternion.wxyz.tolist())
    fusion_seconds = time.perf_counter() - start

    start = time.perf_counter()
    mahony = Mahony(gyr=gyro_rad, acc=accel, frequency=1.0 / float(dt[0]), k_P=gain, k_I=1e-12,
                    q0=np.array([1.0, 0.0, 0.0, 0.0]))
    ahrs_seconds = time.perf_counter() - start
    ahrs_q = mahony.Q[every - 1::every].tolist()

    with open(result_path, "w") as f:
        json.dump({
            "samples": n,
            "imufusion": {"seconds": fusion_seconds, "version": md.version("imufusion"), "quaternions": fusion_q},
            "ahrs": {"seconds": ahrs_seconds, "version": md.version("ahrs"), "quaternions": ahrs_q},
        }, f)


if __name__ == "__main__":
    main()
