// Test suites: unit tests run src/ against the in-memory HAL (fast, parallel);
// e2e tests boot the simulator and use real clients (built once in globalSetup).
// Both first make the Moddable SDK ready when there is one (test/sdk-setup.ts), and
// fail the run if it leaves the checkout changed (test/clean-checkout.ts).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/clean-checkout.ts', 'test/sdk-setup.ts'],
          // Property tests (fast-check, Ajv) take seconds of CPU; on a shared, loaded machine the
          // 5 s default failed them for slowness, which is not a failure (the e2e project has 60 s).
          testTimeout: 30_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/clean-checkout.ts', 'test/sdk-setup.ts', 'test/e2e/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: true,
          maxWorkers: 2,
          // After the unit suites, so simulator boots do not compete with them.
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
