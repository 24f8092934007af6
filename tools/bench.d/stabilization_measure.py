#!/usr/bin/env python3
"""Measurement and reference for `tools/bench stabilization` (numpy + OpenCV from the test venv).

  stabilization_measure.py measure JOB.json RESULT.json
      Decodes the video, tracks features between consecutive frames (Shi-Tomasi corners, pyramidal
      Lucas-Kanade, forward-backward checked) and fits each pair's motion field with an affine map
      in centred coordinates: u = a0 + a1 x + a2 y, v = b0 + b1 x + b2 y. Shift = (a0, b0); roll =
      b1 (rad; how vertical motion grows across the frame, which a rolling shutter does not
      change); rolling-shutter skew = (a2 + b1, b2) (how motion changes down the frame, beyond the
      roll); total = RMS of the fitted field over a 16 x 9 grid (shift, roll and skew together).
      The same fit is made of the simulator's true camera motion between the frames (the
      profile's yaw, pitch and roll at each row's exposure time), for the unstabilized file's check.
  stabilization_measure.py reference JOB.json RESULT.json
      Warps the same source frames with OpenCV's warpPerspective (bilinear, edges replicated), one
      call per row band per plane with the band's homography, times it, and compares with
      Tripod's warped frames.
  stabilization_measure.py plot JOB.json OUT.png
      Draws the inter-frame motion over time of several measured files (a before/after picture).
"""
import json
import sys
import time

import cv2
import numpy as np


def rotation(yaw, pitch, roll):
    cy, sy, cp, sp, cr, sr = np.cos(yaw), np.sin(yaw), np.cos(pitch), np.sin(pitch), np.cos(roll), np.sin(roll)
    ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    rx = np.array([[1, 0, 0], [0, cp, -sp], [0, sp, cp]])
    rz = np.array([[cr, -sr, 0], [sr, cr, 0], [0, 0, 1]])
    return ry @ rx @ rz


def angles(profile, t_ns):
    t = (t_ns - profile["origin_ns"]) / 1e9
    def total(terms):
        return sum(a * np.sin(2 * np.pi * f * t + p) for a, f, p in terms)
    return profile["pan"] * t + total(profile["yaw"]), total(profile["pitch"]), total(profile["roll"])


def fit(points, motion):
    """Least-squares affine field (a0, a1, a2, b0, b1, b2) of motion at centred points, with one
    round of outlier rejection."""
    design = np.column_stack([np.ones(len(points)), points[:, 0], points[:, 1]])
    keep = np.ones(len(points), bool)
    for _ in range(2):
        a, *_ = np.linalg.lstsq(design[keep], motion[keep, 0], rcond=None)
        b, *_ = np.linalg.lstsq(design[keep], motion[keep, 1], rcond=None)
        residual = np.hypot(design @ a - motion[:, 0], design @ b - motion[:, 1])
        limit = max(3 * np.median(residual[keep]), 0.05)
        keep = residual <= limit
        if keep.sum() < 12:
            break
    return np.concatenate([a, b])


def describe(params, grid):
    a0, a1, a2, b0, b1, b2 = params
    u = a0 + a1 * grid[:, 0] + a2 * grid[:, 1]
    v = b0 + b1 * grid[:, 0] + b2 * grid[:, 1]
    return {"shift_x": a0, "shift_y": b0, "roll_deg": np.degrees(b1), "skew_x": a2 + b1, "skew_y": b2,
            "total_px": float(np.sqrt(np.mean(u * u + v * v)))}


def decode(path):
    capture = cv2.VideoCapture(path)
    frames = []
    while True:
        ok, frame = capture.read()
        if not ok:
            break
        frames.append(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    return frames


def measure(job):
    frames = decode(job["video"])
    w, h = job["width"], job["height"]
    gx, gy = np.meshgrid((np.arange(16) + 0.5) / 16 * w - w / 2, (np.arange(9) + 0.5) / 9 * h - h / 2)
    grid = np.column_stack([gx.ravel(), gy.ravel()])
    f = job["focal_px"]
    times = job["frames_ns"]
    a_ns, b_ns = job["row_time_ns"]
    profile = job.get("profile")
    pairs = []
    for k in range(max(1, job["skip"]), min(len(frames), len(times))):
        previous, current = frames[k - 1], frames[k]
        corners = cv2.goodFeaturesToTrack(previous, maxCorners=400, qualityLevel=0.01, minDistance=max(8, w // 60), blockSize=7)
        if corners is None or len(corners) < 12:
            continue
        lk = dict(winSize=(21, 21), maxLevel=3, criteria=(cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 40, 0.003))
        forward, status, _ = cv2.calcOpticalFlowPyrLK(previous, current, corners, None, **lk)
        back, status_back, _ = cv2.calcOpticalFlowPyrLK(current, previous, forward, None, **lk)
        good = (status.ravel() == 1) & (status_back.ravel() == 1) & (np.linalg.norm((back - corners).reshape(-1, 2), axis=1) < 0.1)
        if good.sum() < 12:
            continue
        start = corners.reshape(-1, 2)[good]
        moved = forward.reshape(-1, 2)[good] - start
        centred = start + 0.5 - np.array([w / 2, h / 2])
        entry = {"pair": k, "measured": describe(fit(centred, moved), grid)}
        if profile:
            # The true camera motion of the same grid: a point seen in row y of frame k-1 at that
            # row's time, found again in frame k at the same row's time there.
            true_moves = []
            for x, y in grid:
                row = y + h / 2
                r0 = rotation(*angles(profile, times[k - 1] + a_ns + b_ns * row))
                r1 = rotation(*angles(profile, times[k] + a_ns + b_ns * row))
                d = r0 @ np.array([x / f, y / f, 1.0])
                p = r1.T @ d
                true_moves.append([f * p[0] / p[2] - x, f * p[1] / p[2] - y])
            entry["truth"] = describe(fit(grid, np.array(true_moves)), grid)
        pairs.append(entry)
    def rms(source, key):
        values = [p[source][key] for p in pairs if source in p]
        return float(np.sqrt(np.mean(np.square(values)))) if values else None
    summary = {"pairs": len(pairs), "frames_decoded": len(frames)}
    for source in ["measured", "truth"]:
        if pairs and source in pairs[0]:
            summary[source] = {"total_px": rms(source, "total_px"), "roll_deg": rms(source, "roll_deg"),
                               "shift_px": float(np.sqrt(np.mean([p[source]["shift_x"] ** 2 + p[source]["shift_y"] ** 2 for p in pairs]))),
                               "skew_x": rms(source, "skew_x"), "skew_y": rms(source, "skew_y")}
    if profile and pairs:
        # How far the measurement is from the truth, per pair (fields compared on the grid).
        errors = []
        for p in pairs:
            m, t = p["measured"], p["truth"]
            errors.append(np.hypot(m["shift_x"] - t["shift_x"], m["shift_y"] - t["shift_y"]))
        summary["measured_vs_truth_shift_rms_px"] = float(np.sqrt(np.mean(np.square(errors))))
        summary["measured_vs_truth_roll_rms_deg"] = float(np.sqrt(np.mean([(p["measured"]["roll_deg"] - p["truth"]["roll_deg"]) ** 2 for p in pairs])))
    summary["series_total_px"] = [p["measured"]["total_px"] for p in pairs]
    summary["series_roll_deg"] = [p["measured"]["roll_deg"] for p in pairs]
    return summary


def read_i420(path, w, h):
    data = np.fromfile(path, dtype=np.uint8)
    y = data[: w * h].reshape(h, w)
    u = data[w * h: w * h + (w // 2) * (h // 2)].reshape(h // 2, w // 2)
    v = data[w * h + (w // 2) * (h // 2): w * h + 2 * (w // 2) * (h // 2)].reshape(h // 2, w // 2)
    return y, u, v


def reference_warp(planes, bands, band_rows, w, h):
    """Each band of each plane through its homography (centred luma coordinates) with OpenCV."""
    y, u, v = planes
    out_y = np.empty_like(y)
    out_u = np.empty_like(u)
    out_v = np.empty_like(v)
    src_luma = np.array([[1, 0, w / 2 - 0.5], [0, 1, h / 2 - 0.5], [0, 0, 1]])
    src_chroma = np.array([[0.5, 0, w / 4 - 0.5], [0, 0.5, h / 4 - 0.5], [0, 0, 1]])
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    for b, hom in enumerate(bands):
        hom = np.array(hom)
        y0, y1 = b * band_rows, min(h, (b + 1) * band_rows)
        dst = np.array([[1, 0, 0.5 - w / 2], [0, 1, 0.5 - h / 2 + y0], [0, 0, 1]])
        out_y[y0:y1] = cv2.warpPerspective(y, src_luma @ hom @ dst, (w, y1 - y0), flags=flags, borderMode=cv2.BORDER_REPLICATE)
        c0, c1 = y0 // 2, (y1 + 1) // 2
        dst_c = np.array([[2, 0, 1 - w / 2], [0, 2, 1 - h / 2 + 2 * c0], [0, 0, 1]])
        m = src_chroma @ hom @ dst_c
        out_u[c0:c1] = cv2.warpPerspective(u, m, (w // 2, c1 - c0), flags=flags, borderMode=cv2.BORDER_REPLICATE)
        out_v[c0:c1] = cv2.warpPerspective(v, m, (w // 2, c1 - c0), flags=flags, borderMode=cv2.BORDER_REPLICATE)
    return out_y, out_u, out_v


def reference(job):
    w, h, band_rows = job["width"], job["height"], job["band_rows"]
    results = {}
    for threads in job.get("threads", [1, 2]):
        cv2.setNumThreads(threads)
        seconds, diffs, worst, luma_diffs = [], [], 0, []
        for frame in job["frames"]:
            planes = read_i420(frame["source"], w, h)
            tripod = read_i420(frame["tripod"], w, h)
            # One thread: this thread's CPU time; more: wall time (as the Swift side measures).
            clock = time.thread_time if threads == 1 else time.perf_counter
            start = clock()
            ours = reference_warp(planes, frame["bands"], band_rows, w, h)
            seconds.append(clock() - start)
            # Compare away from the outer 2 px (edge replication differs by a sample there).
            for name, a, b in zip("yuv", ours, tripod):
                m = 2 if name == "y" else 1
                d = np.abs(a[m:-m, m:-m].astype(int) - b[m:-m, m:-m].astype(int))
                diffs.append(d.mean())
                worst = max(worst, int(d.max()))
                if name == "y":
                    luma_diffs.append(float((d > 1).mean()))
        results[str(threads)] = {"median_ms": 1000 * float(np.median(seconds)), "mean_abs_diff": float(np.mean(diffs)),
                                 "max_abs_diff": worst, "share_luma_over_1": float(np.mean(luma_diffs))}
    return results


def plot(job, out):
    """Inter-frame motion (total px) over time for each series, one colour each, with a legend."""
    width, height, margin = 960, 360, 50
    image = np.full((height, width, 3), 255, np.uint8)
    series = job["series"]
    top = max(max(s["values"]) for s in series) * 1.05
    frames = max(len(s["values"]) for s in series)
    cv2.rectangle(image, (margin, 20), (width - 20, height - margin), (0, 0, 0), 1)
    for tick in np.arange(0, top, 1.0 if top > 3 else 0.5):
        yy = int(height - margin - tick / top * (height - margin - 20))
        cv2.line(image, (margin - 5, yy), (margin, yy), (0, 0, 0), 1)
        cv2.putText(image, f"{tick:.1f}", (5, yy + 4), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 0), 1, cv2.LINE_AA)
    for s in series:
        colour = tuple(int(c) for c in s["colour"])
        pts = [(int(margin + i / max(frames - 1, 1) * (width - 20 - margin)),
                int(height - margin - v / top * (height - margin - 20))) for i, v in enumerate(s["values"])]
        cv2.polylines(image, [np.array(pts, np.int32)], False, colour, 1, cv2.LINE_AA)
    for i, s in enumerate(series):
        colour = tuple(int(c) for c in s["colour"])
        cv2.putText(image, s["label"], (margin + 10 + 300 * i, height - 15), cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1, cv2.LINE_AA)
    cv2.putText(image, job["title"], (margin + 10, 15), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 1, cv2.LINE_AA)
    cv2.imwrite(out, image)


def main():
    command, job_path, out = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(job_path) as fh:
        job = json.load(fh)
    if command == "plot":
        plot(job, out)
        return
    result = measure(job) if command == "measure" else reference(job)
    with open(out, "w") as fh:
        json.dump(result, fh)


if __name__ == "__main__":
    main()
