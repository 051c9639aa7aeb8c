import { nodeApp } from '../../tsup.app.js';

export default nodeApp({ main: 'src/main.ts' });
