/** The screenshot checker's PNG reader and colour statistics, on PNGs encoded here with every filter type. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { colourStats, decodePng } from './png';
import { zipEntries } from './zip';

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** Encodes RGB(A) pixels, row y using filter `filters[y % filters.length]`. */
function encodePng(width: number, height: number, channels: 3 | 4, pixels: Uint8Array, filters: number[]): Buffer {
  const stride = width * channels;
  const raw = Buffer.alloc(height * (stride + 1));
  for (let y = 0; y < height; y++) {
    const filter = filters[y % filters.length];
    raw[y * (stride + 1)] = filter;
    for (let x = 0; x < stride; x++) {
      const value = pixels[y * stride + x];
      const a = x >= channels ? pixels[y * stride + x - channels] : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + x] : 0;
      const c = y > 0 && x >= channels ? pixels[(y - 1) * stride + x - channels] : 0;
      let predictor = 0;
      if (filter === 1) predictor = a;
      else if (filter === 2) predictor = b;
      else if (filter === 3) predictor = (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      raw[y * (stride + 1) + 1 + x] = (value - predictor) & 0xff;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = channels === 4 ? 6 : 2;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('png reader', () => {
  for (const channels of [3, 4] as const) {
    test(`decodes ${channels === 3 ? 'RGB' : 'RGBA'} rows written with filters 0-4`, () => {
      const width = 7;
      const height = 10;
      const pixels = new Uint8Array(width * height * channels);
      let seed = 12345;
      for (let i = 0; i < pixels.length; i++) {
        seed = (seed * 1103515245 + 12345) >>> 0;
        pixels[i] = seed >>> 24;
      }
      const image = decodePng(encodePng(width, height, channels, pixels, [0, 1, 2, 3, 4]));
      assert.equal(image.width, width);
      assert.equal(image.height, height);
      for (let p = 0; p < width * height; p++) {
        for (let k = 0; k < 3; k++)
          assert.equal(image.rgba[p * 4 + k], pixels[p * channels + k], `pixel ${p} channel ${k}`);
        assert.equal(image.rgba[p * 4 + 3], channels === 4 ? pixels[p * 4 + 3] : 255);
      }
    });
  }

  test('colour statistics tell a blank image from a varied one', () => {
    const blank = decodePng(encodePng(4, 4, 3, new Uint8Array(48).fill(200), [0]));
    assert.deepEqual(colourStats(blank), { distinctColours: 1, dominantShare: 1, meanLuminance: 200 });
    const varied = new Uint8Array(48);
    for (let i = 0; i < 16; i++) varied.set([i * 16, 255 - i * 16, i], i * 3);
    const stats = colourStats(decodePng(encodePng(4, 4, 3, varied, [4])));
    assert.equal(stats.distinctColours, 16);
    assert.equal(stats.dominantShare, 1 / 16);
  });

  test('rejects a file that is not a PNG', () => {
    assert.throws(() => decodePng(Buffer.from('GIF89a not a png')), /not a PNG/);
  });
});

describe('zip listing', () => {
  test('rejects a file without a central directory', () => {
    assert.throws(() => zipEntries(Buffer.alloc(64)), /not a ZIP/);
  });
});
