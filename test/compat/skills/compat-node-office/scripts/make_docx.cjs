// A one-paragraph Word document, written with the docx package found through require().
const fs = require('node:fs');
const { Document, Packer, Paragraph, TextRun, HeadingLevel } = require('docx');

const doc = new Document({
  sections: [
    {
      children: [
        new Paragraph({ text: 'Quarterly report', heading: HeadingLevel.HEADING_1 }),
        new Paragraph({ children: [new TextRun({ text: 'Made with docx from Node.', bold: true })] }),
      ],
    },
  ],
});
Packer.toBuffer(doc).then((buffer) => {
  fs.writeFileSync(process.argv[2], buffer);
  console.log(`wrote ${process.argv[2]} (${buffer.length} bytes)`);
});
