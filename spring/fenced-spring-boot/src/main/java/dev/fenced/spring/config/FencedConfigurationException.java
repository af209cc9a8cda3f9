package dev.fenced.spring.config;

import dev.fenced.FencingException;

/** Bad {@code fenced.*} configuration found at start-up; the message is the driver's own, naming the key. */
public final class FencedConfigurationException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public FencedConfigurationException(FencingException cause) {
        super(cause.getMessage(), cause);
    }

    public FencedConfigurationException(String message) {
        super(message);
    }
}
