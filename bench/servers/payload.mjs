// The large payload of payload.py, built the same way: 16,384 lines of 64 ASCII characters
// (1 MiB), served as the resource bench://large and as the result of the tool `large`.
export const LARGE_URI = 'bench://large';
export const LARGE_TOOL = 'large';
const LINE_BODY = 'the quick brown fox jumps over the "lazy" dog: 012345678';
const lines = [];
for (let i = 0; i < 16384; i++) lines.push(`${String(i).padStart(6, '0')} ${LINE_BODY}\n`);
export const LARGE_TEXT = lines.join('');
if (LARGE_TEXT.length !== 1 << 20) throw new Error('payload is not 1 MiB');
