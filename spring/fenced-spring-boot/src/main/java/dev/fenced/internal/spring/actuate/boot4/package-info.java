/** The health indicator against Spring Boot 4's actuator API. <b>Internal to fenced.</b> */
package dev.fenced.internal.spring.actuate.boot4;
