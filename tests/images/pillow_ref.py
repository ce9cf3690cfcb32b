#!/usr/bin/env python3
"""Pillow as the independent reference for the image tests.

  pillow_ref.py decode FILE          -> "W H\n" then W*H*4 bytes of RGBA (first frame)
  pillow_ref.py box FILE W H         -> the same, after alpha onto white and a BOX resize to WxH
  pillow_ref.py info FILE            -> "FORMAT W H" as Pillow opens it (fully loaded)
  pillow_ref.py make KIND FILE       -> writes a 37x23 gradient PNG of one colour type and depth
  pillow_ref.py topng FILE OUT        -> re-saves FILE (oriented, RGBA) as PNG
  pillow_ref.py jpeg FILE OUT Q [S [MODE]] -> saves FILE as a JPEG at quality Q, chroma
                                        subsampling S (0 4:4:4, 1 4:2:2, 2 4:2:0, the default),
                                        MODE RGB (default) or L; libjpeg's defaults otherwise
                                        (islow DCT, Annex K Huffman tables)
  pillow_ref.py fixtures SRC DIR      -> DIR/12mp.jpg (4000x3000, q90) and DIR/4mp.png from SRC
  pillow_ref.py bench JPG PNG N      -> per step, one line: "step best-cpu median-cpu best-wall"
                                        (seconds of N runs)
  pillow_ref.py version              -> Pillow's version

16-bit samples are reduced to their high byte, which is what Pillow does for RGB(A) and LA; its
16-bit grayscale mode ("I") is shifted here to match. JPEG EXIF orientation is applied.
"""
import sys

from PIL import Image, ImageOps


def rgba(path):
    im = Image.open(path)
    im.load()
    if im.format == "JPEG":
        im = ImageOps.exif_transpose(im)
    if im.mode in ("I", "I;16", "I;16B"):
        has_trns = "transparency" in im.info
        trns = im.info.get("transparency")
        import numpy
        a = numpy.asarray(im).astype("uint32")
        l8 = (a >> 8).astype("uint8")
        out = numpy.dstack([l8, l8, l8, numpy.where(a == trns, 0, 255).astype("uint8")
                            if has_trns else numpy.full(l8.shape, 255, "uint8")])
        return Image.fromarray(out, "RGBA")
    return im.convert("RGBA")


def make(kind, path):
    import numpy
    y, x = numpy.mgrid[0:23, 0:37]
    v = ((x * 7 + y * 11) % 256).astype("uint8")
    if kind == "gray1":
        Image.fromarray(v > 127).convert("1").save(path)
    elif kind in ("gray8", "rgb8", "rgba8", "graya8"):
        rgba = numpy.dstack([v, 255 - v, (x * 13 % 256).astype("uint8"),
                             (y * 9 % 256).astype("uint8")])
        mode = {"gray8": "L", "rgb8": "RGB", "rgba8": "RGBA", "graya8": "LA"}[kind]
        Image.fromarray(rgba, "RGBA").convert(mode).save(path)
    elif kind == "gray16":
        Image.fromarray((x * 1733 + y * 911).astype("uint16") % 65536, "I;16").save(path)
    elif kind.startswith("palette"):
        bits = int(kind[len("palette"):])
        colours = 1 << bits
        im = Image.fromarray((v % colours).astype("uint8"), "P")
        im.putpalette([c for i in range(colours) for c in (i * 37 % 256, i * 91 % 256, i * 17 % 256)])
        im.info["transparency"] = bytes([(i * 53) % 256 for i in range(colours)])
        im.save(path, bits=bits, transparency=im.info["transparency"])
    elif kind == "rgb8trns":
        rgb = numpy.dstack([v, v, v])
        Image.fromarray(rgb, "RGB").save(path, transparency=(14, 14, 14))


def bench(jpg, png, n):
    import io
    import time

    def best(fn):  # best and median CPU seconds and best wall seconds of n runs
        cpu, wall = [], float("inf")
        for _ in range(n):
            start, cpu_start = time.perf_counter(), time.process_time()
            fn()
            cpu.append(time.process_time() - cpu_start)
            wall = min(wall, time.perf_counter() - start)
        cpu.sort()
        return "%r %r %r" % (cpu[0], cpu[len(cpu) // 2], wall)

    def load(path):
        im = Image.open(path)
        im.load()
        return im

    photo = load(jpg).convert("RGB")
    small = photo.resize((2000, 1500), Image.BOX)
    print("decode_jpeg", best(lambda: load(jpg)))
    print("decode_png", best(lambda: load(png)))
    print("downscale", best(lambda: photo.resize((2000, 1500), Image.BOX)))
    print("encode_jpeg", best(lambda: small.save(io.BytesIO(), "JPEG", quality=85)))
    print("encode_png", best(lambda: small.save(io.BytesIO(), "PNG")))


def emit(im):
    sys.stdout.buffer.write(b"%d %d\n" % im.size)
    sys.stdout.buffer.write(im.tobytes())


def main():
    cmd = sys.argv[1]
    if cmd == "version":
        print(Image.__version__ if hasattr(Image, "__version__") else "unknown")
    elif cmd == "decode":
        emit(rgba(sys.argv[2]))
    elif cmd == "box":
        im = rgba(sys.argv[2])
        white = Image.new("RGBA", im.size, (255, 255, 255, 255))
        flat = Image.alpha_composite(white, im).convert("RGB")
        emit(flat.resize((int(sys.argv[3]), int(sys.argv[4])), Image.BOX).convert("RGBA"))
    elif cmd == "make":
        make(sys.argv[2], sys.argv[3])
    elif cmd == "fixtures":
        src = Image.open(sys.argv[2]).convert("RGB")
        src.resize((4000, 3000), Image.BICUBIC).save(sys.argv[3] + "/12mp.jpg", quality=90)
        src.resize((2000, 2000), Image.BICUBIC).save(sys.argv[3] + "/4mp.png")
    elif cmd == "bench":
        bench(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif cmd == "jpeg":
        sub = int(sys.argv[5]) if len(sys.argv) > 5 else 2
        mode = sys.argv[6] if len(sys.argv) > 6 else "RGB"
        Image.open(sys.argv[2]).convert(mode).save(sys.argv[3], quality=int(sys.argv[4]),
                                                   subsampling=sub)
    elif cmd == "topng":
        rgba(sys.argv[2]).save(sys.argv[3])
    elif cmd == "info":
        im = Image.open(sys.argv[2])
        im.load()
        print(im.format, im.size[0], im.size[1])


if __name__ == "__main__":
    main()
