import { nodeApp } from '../../tsup.app.js';

export default nodeApp({ main: 'src/main.ts', embedded: 'src/embedded.ts', migrate: 'src/migrate.ts' });
