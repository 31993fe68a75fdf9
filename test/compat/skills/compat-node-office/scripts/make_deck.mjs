// A two-slide deck, written with pptxgenjs found through an ES module import.
import pptxgen from 'pptxgenjs';

const deck = new pptxgen();
deck.addSlide().addText('Skillet compatibility', { x: 1, y: 1, fontSize: 32 });
deck.addSlide().addText('Second slide', { x: 1, y: 1, fontSize: 24 });
await deck.writeFile({ fileName: process.argv[2] });
console.log(`wrote ${process.argv[2]}`);
