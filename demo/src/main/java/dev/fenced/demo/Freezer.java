package dev.fenced.demo;

/** Freezes the holder for a while, for real: the calling thread does not return before it is over. */
interface Freezer {

    void freeze(long millis) throws InterruptedException;
}
