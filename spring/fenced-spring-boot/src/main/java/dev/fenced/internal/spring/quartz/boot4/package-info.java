/** The scheduler customizer against Spring Boot 4's Quartz API. <b>Internal to fenced.</b> */
@NullMarked
package dev.fenced.internal.spring.quartz.boot4;

import org.jspecify.annotations.NullMarked;
