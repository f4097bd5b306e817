// The live page (placeholder until the page lands).
