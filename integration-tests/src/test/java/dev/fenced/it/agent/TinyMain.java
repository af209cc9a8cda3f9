package dev.fenced.it.agent;

/** The smallest application, for measuring the agent's start-up cost. */
public final class TinyMain {
    private TinyMain() {}

    public static void main(String[] args) {
        System.out.println("hello");
    }
}
