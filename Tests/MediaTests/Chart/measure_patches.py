"""Decodes a DNG with rawpy (LibRaw) the way a raw converter would by default, with the camera's
white balance (AsShotNeutral) and its colour matrix (ColorMatrix1), to linear sRGB, and prints the
CIE L*a*b* (D65 white) of the mean of each box.

    measure_patches.py FILE.dng BOXES.json    (boxes: [[x0, y0, x1, y1], ...] in image pixels)

Prints {"size": [width, height], "lab": [[L, a, b], ...]} as JSON.
"""
import json
import sys

import numpy
import rawpy

# Linear sRGB (D65) to XYZ, IEC 61966-2-1; D65 white.
SRGB_TO_XYZ = numpy.array([[0.4124564, 0.3575761, 0.1804375],
                           [0.2126729, 0.7151522, 0.0721750],
                           [0.0193339, 0.1191920, 0.9503041]])
D65 = numpy.array([0.95047, 1.0, 1.08883])


def lab(rgb):
    xyz = SRGB_TO_XYZ @ rgb / D65
    f = numpy.where(xyz > (6 / 29) ** 3, numpy.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return [116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])]


def main():
    path, boxes_path = sys.argv[1], sys.argv[2]
    with open(boxes_path) as handle:
        boxes = json.load(handle)
    with rawpy.imread(path) as raw:
        image = raw.postprocess(use_camera_wb=True, no_auto_bright=True, gamma=(1, 1), output_bps=16,
                                output_color=rawpy.ColorSpace.sRGB, user_flip=0,
                                demosaic_algorithm=rawpy.DemosaicAlgorithm.AHD)
    linear = image.astype(numpy.float64) / 65535
    result = []
    for x0, y0, x1, y1 in boxes:
        mean = linear[y0:y1, x0:x1].reshape(-1, 3).mean(axis=0)
        result.append(lab(mean))
    print(json.dumps({"size": [image.shape[1], image.shape[0]], "lab": result}))


if __name__ == "__main__":
    main()
