// A minimal PNG decoder (8-bit RGBA or RGB, non-interlaced — what resvg writes), so tests can look at pixels.
import zlib from 'node:zlib';

export interface Image {
  width: number;
  height: number;
  /** Bytes per pixel (3 or 4). */
  bpp: number;
  data: Buffer;
}

export function decodePng(buf: Buffer): Image {
  if (buf.readUInt32BE(0) !== 0x89504e47) throw new Error('not a PNG');
  let off = 8;
  let width = 0;
  let height = 0;
  let bpp = 0;
  const idat: Buffer[] = [];
  while (off < buf.length) {
    const len = buf.readUInt32BE(off);
    const type = buf.toString('ascii', off + 4, off + 8);
    const body = buf.subarray(off + 8, off + 8 + len);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const [depth, color, , , interlace] = [body[8], body[9], body[10], body[11], body[12]];
      if (depth !== 8 || interlace !== 0 || (color !== 6 && color !== 2))
        throw new Error(`unsupported PNG (depth ${depth}, color ${color})`);
      bpp = color === 6 ? 4 : 3;
    } else if (type === 'IDAT') idat.push(body);
    off += 12 + len;
  }
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  const data = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? data[y * stride + x - bpp]! : 0;
      const b = y > 0 ? data[(y - 1) * stride + x]! : 0;
      const c = x >= bpp && y > 0 ? data[(y - 1) * stride + x - bpp]! : 0;
      const p = a + b - c;
      const pred = [
        0,
        a,
        b,
        Math.floor((a + b) / 2),
        Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c)
          ? a
          : Math.abs(p - b) <= Math.abs(p - c)
            ? b
            : c,
      ][filter]!;
      data[y * stride + x] = (line[x]! + pred) & 0xff;
    }
  }
  return { width, height, bpp, data };
}

/** Pixels in the box that are clearly not the white background. */
export function inkPixels(img: Image, box: { x0: number; y0: number; x1: number; y1: number }): number {
  let n = 0;
  for (let y = box.y0; y < Math.min(box.y1, img.height); y++) {
    for (let x = box.x0; x < Math.min(box.x1, img.width); x++) {
      const i = (y * img.width + x) * img.bpp;
      const dark = 255 * 3 - (img.data[i]! + img.data[i + 1]! + img.data[i + 2]!);
      if (dark > 150) n++;
    }
  }
  return n;
}
