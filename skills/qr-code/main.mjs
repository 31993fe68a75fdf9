import QRCode from 'qrcode';

export default async function run({ input, toolUse, writeFile, message, result }) {
  const text = input.trim();
  toolUse('encode', 'Encoding the QR code');
  const png = await QRCode.toBuffer(text, { type: 'png', errorCorrectionLevel: 'M', margin: 2, scale: 8 });
  await writeFile('qr.png', png);
  message(`Encoded ${Buffer.byteLength(text)} bytes as qr.png (${png.byteLength} bytes).`);
  result('qr.png');
}
